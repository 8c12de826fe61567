// Package decfloat converts decimals to doubles as DuckDB's CAST does (the double nearest
// the decimal), so that a cast the planner folds into a constant and the same cast
// evaluated on a column give the same double.
package decfloat

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// pow10 holds 10^0 .. 10^22, the powers of ten a double represents exactly.
var pow10 = func() (t [23]float64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// Exact53 bounds the unscaled integers whose double is exact (|x| < 2^53).
const Exact53 = 1 << 53

// ToFloat64 returns the double nearest the decimal n×10^-scale: CAST(0.3 AS DOUBLE) is the
// double nearest 0.3, which arrow's Num.ToFloat64 (a multiplication by an inexact power of
// ten) misses. Small values take one division of exact operands (Fast); others are read
// from the decimal's digits.
func ToFloat64(n decimal128.Num, scale int32) float64 {
	if hi, lo := n.HighBits(), n.LowBits(); (hi == 0 || hi == -1) && scale >= 0 {
		if f, ok := Fast(int64(lo), scale); ok && (hi == 0) == (int64(lo) >= 0) {
			return f
		}
	}
	f, err := strconv.ParseFloat(n.ToString(scale), 64)
	if err != nil { // not reached: ToString spells a finite number
		return n.ToFloat64(scale)
	}
	return f
}

// Fast returns x×10^-scale as the nearest double when both x and 10^scale are exact
// doubles (one correctly rounded division); ok is false otherwise.
func Fast(x int64, scale int32) (float64, bool) {
	if x >= Exact53 || x <= -Exact53 || scale < 0 || int(scale) >= len(pow10) {
		return 0, false
	}
	return float64(x) / pow10[scale], true
}
