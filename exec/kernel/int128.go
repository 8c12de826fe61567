package kernel

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/flightd/flightd/internal/decfloat"
)

// Int128 is a signed 128-bit integer, used to sum integers without overflow (DuckDB sums
// BIGINT into HUGEINT).
type Int128 struct {
	Hi int64
	Lo uint64
}

// AddInt64 returns x + v.
func (x Int128) AddInt64(v int64) Int128 {
	lo, carry := bits.Add64(x.Lo, uint64(v), 0)
	hi := x.Hi + int64(carry)
	if v < 0 {
		hi--
	}
	return Int128{Hi: hi, Lo: lo}
}

// AddUint64 returns x + v.
func (x Int128) AddUint64(v uint64) Int128 {
	lo, carry := bits.Add64(x.Lo, v, 0)
	return Int128{Hi: x.Hi + int64(carry), Lo: lo}
}

// Add returns x + y.
func (x Int128) Add(y Int128) Int128 {
	lo, carry := bits.Add64(x.Lo, y.Lo, 0)
	return Int128{Hi: x.Hi + y.Hi + int64(carry), Lo: lo}
}

// Int64 returns x as an int64 and whether it fits.
func (x Int128) Int64() (int64, bool) {
	v := int64(x.Lo)
	return v, (x.Hi == 0 && v >= 0) || (x.Hi == -1 && v < 0)
}

// Float64 returns x as the nearest float64.
func (x Int128) Float64() float64 {
	if v, ok := x.Int64(); ok {
		return float64(v)
	}
	return decfloat.ToFloat64(x.Decimal128(), 0)
}

// Decimal128 returns x as a decimal128 number of scale 0.
func (x Int128) Decimal128() decimal128.Num {
	return decimal128.New(x.Hi, x.Lo)
}
