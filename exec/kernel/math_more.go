package kernel

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// moreMathFuncs are the trigonometric, number-theory and float-class functions, with
// DuckDB's semantics (domain errors give NaN, as sqrt does).
var moreMathFuncs = map[string]ScalarDef{
	"sin":       {floatUnary(math.Sin), 1, 1, true},
	"cos":       {floatUnary(math.Cos), 1, 1, true},
	"tan":       {floatUnary(math.Tan), 1, 1, true},
	"asin":      {floatUnary(math.Asin), 1, 1, true},
	"acos":      {floatUnary(math.Acos), 1, 1, true},
	"atan":      {floatUnary(math.Atan), 1, 1, true},
	"cot":       {floatUnary(func(x float64) float64 { return 1 / math.Tan(x) }), 1, 1, true},
	"atan2":     {floatBinary(math.Atan2), 2, 2, true},
	"degrees":   {floatUnary(func(x float64) float64 { return x * 180 / math.Pi }), 1, 1, true},
	"radians":   {floatUnary(func(x float64) float64 { return x * math.Pi / 180 }), 1, 1, true},
	"cbrt":      {floatUnary(math.Cbrt), 1, 1, true},
	"isnan":     {floatClass(math.IsNaN), 1, 1, true},
	"isinf":     {floatClass(func(x float64) bool { return math.IsInf(x, 0) }), 1, 1, true},
	"isfinite":  {floatClass(func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }), 1, 1, true},
	"factorial": {factorialFunc, 1, 1, true},
	"gcd":       {int64Binary(GCD), 2, 2, true},
	"lcm":       {int64Binary(LCM), 2, 2, true},
	"trunc":     {truncFunc, 1, 2, true},
}

func init() {
	for name, def := range moreMathFuncs {
		mathFuncs[name] = def
	}
}

// floatBinary applies f to two numeric arguments, as float64.
func floatBinary(f func(a, b float64) float64) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		a, err := numGetter(args[0])
		if err != nil {
			return nil, err
		}
		b, err := numGetter(args[1])
		if err != nil {
			return nil, err
		}
		return buildFloat64s(mem, args, args[0].Len(), func(i int) (float64, bool, error) {
			return f(a(i), b(i)), true, nil
		})
	}
}

// floatClass is a BOOLEAN predicate over the float64 values.
func floatClass(f func(float64) bool) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		get, err := numGetter(args[0])
		if err != nil {
			return nil, err
		}
		return buildBools(mem, args, args[0].Len(), func(i int) (bool, error) { return f(get(i)), nil })
	}
}

// int64Binary applies f to two integer arguments, giving BIGINT.
func int64Binary(f func(a, b int64) (int64, error)) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		a, err := intGetter(args[0])
		if err != nil {
			return nil, err
		}
		b, err := intGetter(args[1])
		if err != nil {
			return nil, err
		}
		return buildInt64s(mem, args, args[0].Len(), func(i int) (int64, error) { return f(a(i), b(i)) })
	}
}

// GCD is the greatest common divisor, never negative; a result of 2^63 (gcd of the most
// negative BIGINT with 0 or itself) overflows, as in DuckDB.
func GCD(a, b int64) (int64, error) {
	for b != 0 {
		a, b = b, a%b
	}
	if a == math.MinInt64 {
		return 0, dberr.New(dberr.OutOfRange, "Overflow on abs(%d)", a)
	}
	return abs64(a), nil
}

// LCM is the least common multiple, never negative; 0 when either argument is 0.
func LCM(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	g, err := GCD(a, b)
	if err != nil {
		return 0, err
	}
	q := a / g
	r := q * b
	if r/b != q || r == math.MinInt64 {
		return 0, dberr.New(dberr.OutOfRange, "lcm value is out of range")
	}
	return abs64(r), nil
}

// maxFactorial is the largest n whose factorial fits DuckDB's HUGEINT.
const maxFactorial = 33

// factorialFunc is factorial(n) as DECIMAL(38, 0) (DuckDB's HUGEINT): negative n and
// n > 33 are out of range.
func factorialFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := intGetter(args[0])
	if err != nil {
		return nil, err
	}
	n := args[0].Len()
	out := NewFixed[decimal128.Num](mem, &arrow.Decimal128Type{Precision: 38}, n)
	for i := range n {
		if !IsValid(args[0], i) {
			out.SetNull(i)
			continue
		}
		v, err := Factorial(get(i))
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Values[i] = v
	}
	return out.Finish(), nil
}

// Factorial is n! as a 128-bit integer.
func Factorial(n int64) (decimal128.Num, error) {
	switch {
	case n < 0:
		return decimal128.Num{}, dberr.New(dberr.OutOfRange, "factorial of a negative number is undefined")
	case n > maxFactorial:
		return decimal128.Num{}, dberr.New(dberr.OutOfRange, "Value out of range")
	}
	r := decimal128.FromI64(1)
	for k := int64(2); k <= n; k++ {
		r = r.Mul(decimal128.FromI64(k))
	}
	return r, nil
}

// truncFunc is trunc(x[, digits]): towards zero; integers are kept (negative digits zero
// the last digits), decimals keep their scale (the caller narrows it).
var truncFunc = digitsFunc("trunc", truncFloat, truncDecimalTo, truncInt)

// digitsFunc builds round or trunc over x and optional digits: f for floats (as DOUBLE),
// dec for decimals (keeping the type; the caller narrows the scale), i for integers (as
// BIGINT).
func digitsFunc(name string, f func(float64, int64) float64, dec func(x decimal128.Num, scale, digits int32) decimal128.Num, i func(x, digits int64) int64) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		a := args[0]
		digits := func(int) int64 { return 0 }
		if len(args) == 2 {
			var err error
			if digits, err = intGetter(args[1]); err != nil {
				return nil, err
			}
		}
		switch id := a.DataType().ID(); {
		case id == arrow.FLOAT32 || id == arrow.FLOAT64:
			get := floatGetter(a)
			return buildFloat64s(mem, args, a.Len(), func(r int) (float64, bool, error) {
				return f(get(r), digits(r)), true, nil
			})
		case id == arrow.DECIMAL128:
			return decimalDigits(mem, args, digits, dec), nil
		case arrow.IsInteger(id):
			get, err := intGetter(a)
			if err != nil {
				return nil, err
			}
			return buildInt64s(mem, args, a.Len(), func(r int) (int64, error) {
				return i(get(r), digits(r)), nil
			})
		}
		return nil, dberr.NotSupported(name + " of " + a.DataType().String())
	}
}

// decimalDigits maps every decimal of args[0] through f with its row's digits.
func decimalDigits(mem memory.Allocator, args []arrow.Array, digits func(int) int64, f func(x decimal128.Num, scale, digits int32) decimal128.Num) arrow.Array {
	a := args[0].(*array.Decimal128)
	dt := a.DataType().(*arrow.Decimal128Type)
	out := NewFixed[decimal128.Num](mem, dt, a.Len())
	for i := range a.Len() {
		if !allValid(args, i) {
			out.SetNull(i)
			continue
		}
		out.Values[i] = f(a.Value(i), dt.Scale, int32(max(min(digits(i), 38), -38)))
	}
	return out.Finish()
}

func truncFloat(x float64, digits int64) float64 {
	if digits == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Trunc(x)
	}
	p := math.Pow(10, float64(max(min(digits, 308), -308)))
	if math.IsInf(x*p, 0) {
		return x
	}
	return math.Trunc(x*p) / p
}

func truncInt(x, digits int64) int64 {
	if digits >= 0 {
		return x
	}
	if digits < -18 {
		return 0
	}
	p := int64(math.Pow10(int(-digits)))
	return x / p * p
}

// truncDecimalTo truncates x (at scale) to digits decimal places, keeping the scale.
func truncDecimalTo(x decimal128.Num, scale, digits int32) decimal128.Num {
	drop := scale - digits
	switch {
	case drop <= 0:
		return x
	case drop > 38:
		return decimal128.Num{}
	}
	mult := decimal128.GetScaleMultiplier(int(drop))
	q, _ := x.Div(mult)
	return q.Mul(mult)
}
