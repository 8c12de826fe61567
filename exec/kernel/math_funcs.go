package kernel

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/decfloat"
)

// mathFuncs are the numeric functions, with DuckDB's semantics: floating-point domain
// errors give NaN or ±Inf rather than errors (sqrt(-1) = NaN, ln(0) = -Inf), round rounds
// half away from zero, integer abs overflows with an error.
var mathFuncs = map[string]ScalarDef{
	"abs":                  {absFunc, 1, 1, true},
	"ceil":                 {roundingFunc(math.Ceil, ceilDecimal), 1, 1, true},
	"floor":                {roundingFunc(math.Floor, floorDecimal), 1, 1, true},
	"round":                {roundFunc, 1, 2, true},
	"sqrt":                 {floatUnary(math.Sqrt), 1, 1, true},
	"ln":                   {floatUnary(math.Log), 1, 1, true},
	"log10":                {floatUnary(math.Log10), 1, 1, true},
	"log2":                 {floatUnary(math.Log2), 1, 1, true},
	"exp":                  {floatUnary(math.Exp), 1, 1, true},
	"power":                {powerFunc, 2, 2, true},
	"sign":                 {signFunc, 1, 1, true},
	"greatest":             {extremeFunc(1), 1, -1, false},
	"least":                {extremeFunc(-1), 1, -1, false},
	"nullif":               {nullifFunc, 2, 2, false},
	"is_distinct_from":     {distinctFunc(true), 2, 2, false},
	"is_not_distinct_from": {distinctFunc(false), 2, 2, false},
}

// numGetter returns the values of a numeric array (integer, float or decimal) as float64.
func numGetter(a arrow.Array) (func(int) float64, error) {
	switch a := a.(type) {
	case *array.Float32, *array.Float64:
		return floatGetter(a), nil
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) float64 { return decfloat.ToFloat64(a.Value(i), scale) }, nil
	}
	get, err := intGetter(a)
	if err != nil {
		return nil, dberr.New(dberr.Internal, "want a numeric argument, got %s", a.DataType())
	}
	if a.DataType().ID() == arrow.UINT64 {
		u := a.(*array.Uint64)
		return func(i int) float64 { return float64(u.Value(i)) }, nil
	}
	return func(i int) float64 { return float64(get(i)) }, nil
}

// floatUnary applies f to every value, as float64.
func floatUnary(f func(float64) float64) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		get, err := numGetter(args[0])
		if err != nil {
			return nil, err
		}
		return buildFloat64s(mem, args, args[0].Len(), func(i int) (float64, bool, error) {
			return f(get(i)), true, nil
		})
	}
}

var powerFunc = floatBinary(math.Pow) // math_more.go

// signFunc is -1, 0 or 1 (int8); NaN gives 0.
func signFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	get, err := numGetter(args[0])
	if err != nil {
		return nil, err
	}
	n := args[0].Len()
	out := NewFixed[int8](mem, arrow.PrimitiveTypes.Int8, n)
	for i := range n {
		if !IsValid(args[0], i) {
			out.SetNull(i)
			continue
		}
		switch v := get(i); {
		case v > 0:
			out.Values[i] = 1
		case v < 0:
			out.Values[i] = -1
		}
	}
	return out.Finish(), nil
}

// absFunc keeps the argument's type; the most negative integer overflows.
func absFunc(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	a := args[0]
	switch a.DataType().ID() {
	case arrow.INT8:
		return unary(mem, a, absSigned[int8](a.DataType()))
	case arrow.INT16:
		return unary(mem, a, absSigned[int16](a.DataType()))
	case arrow.INT32:
		return unary(mem, a, absSigned[int32](a.DataType()))
	case arrow.INT64:
		return unary(mem, a, absSigned[int64](a.DataType()))
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		a.Retain()
		return a, nil
	case arrow.FLOAT32:
		return unary(mem, a, func(x float32) (float32, error) { return float32(math.Abs(float64(x))), nil })
	case arrow.FLOAT64:
		return unary(mem, a, func(x float64) (float64, error) { return math.Abs(x), nil })
	case arrow.DECIMAL128:
		return decimalUnary(mem, a, func(x decimal128.Num, _ int32) decimal128.Num { return x.Abs() })
	}
	return nil, dberr.NotSupported("abs of " + a.DataType().String())
}

func absSigned[T signed](dt arrow.DataType) func(x T) (T, error) {
	return func(x T) (T, error) {
		if x >= 0 {
			return x, nil
		}
		if -x < 0 {
			return 0, dberr.New(dberr.OutOfRange, "Overflow on abs(%d) of type %s", x, TypeName(dt))
		}
		return -x, nil
	}
}

// decimalUnary maps every decimal through f (given the scale), keeping the type.
func decimalUnary(mem memory.Allocator, a arrow.Array, f func(x decimal128.Num, scale int32) decimal128.Num) (arrow.Array, error) {
	dt := a.DataType().(*arrow.Decimal128Type)
	vals := a.(*array.Decimal128)
	n := a.Len()
	out := NewFixed[decimal128.Num](mem, dt, n)
	for i := range n {
		if !IsValid(a, i) {
			out.SetNull(i)
			continue
		}
		out.Values[i] = f(vals.Value(i), dt.Scale)
	}
	return out.Finish(), nil
}

// roundingFunc is ceil or floor: identity on integers, f on floats, exact on decimals.
func roundingFunc(f func(float64) float64, dec func(decimal128.Num, int32) decimal128.Num) ScalarFunc {
	return func(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		a := args[0]
		switch {
		case arrow.IsInteger(a.DataType().ID()):
			a.Retain()
			return a, nil
		case a.DataType().ID() == arrow.FLOAT32:
			return unary(mem, a, func(x float32) (float32, error) { return float32(f(float64(x))), nil })
		case a.DataType().ID() == arrow.FLOAT64:
			return unary(mem, a, func(x float64) (float64, error) { return f(x), nil })
		case a.DataType().ID() == arrow.DECIMAL128:
			return decimalUnary(mem, a, dec)
		}
		return nil, dberr.NotSupported("ceil/floor of " + a.DataType().String())
	}
}

// ceilDecimal and floorDecimal round x (at scale) to an integer, keeping the scale.
func ceilDecimal(x decimal128.Num, scale int32) decimal128.Num {
	return roundDecimalTo(x, scale, 0, 1)
}

func floorDecimal(x decimal128.Num, scale int32) decimal128.Num {
	return roundDecimalTo(x, scale, 0, -1)
}

// roundDecimalTo rounds x (at scale) to digits decimal places, keeping the scale: mode 1
// rounds up, -1 down, 0 half away from zero.
func roundDecimalTo(x decimal128.Num, scale, digits int32, mode int) decimal128.Num {
	drop := scale - digits
	if drop <= 0 {
		return x
	}
	if drop > 38 {
		return decimal128.Num{}
	}
	mult := decimal128.GetScaleMultiplier(int(drop))
	var q decimal128.Num
	if mode == 0 {
		q = x.ReduceScaleBy(drop, true)
	} else {
		var rem decimal128.Num
		q, rem = x.Div(mult)
		if mode > 0 && rem.Sign() > 0 {
			q = q.Add(decimal128.FromI64(1))
		}
		if mode < 0 && rem.Sign() < 0 {
			q = q.Sub(decimal128.FromI64(1))
		}
	}
	return q.Mul(mult)
}

// roundFunc is round(x[, digits]): half away from zero; negative digits round to tens,
// hundreds, ... (digitsFunc, math_more.go).
var roundFunc = digitsFunc("round", roundFloat, func(x decimal128.Num, scale, digits int32) decimal128.Num {
	return roundDecimalTo(x, scale, digits, 0)
}, roundInt)

// roundFloat rounds half away from zero to digits places, as DuckDB does.
func roundFloat(x float64, digits int64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if digits >= 0 {
		p := math.Pow(10, float64(min(digits, 308)))
		r := math.Round(x*p) / p
		if math.IsInf(x*p, 0) {
			return x
		}
		return r
	}
	p := math.Pow(10, float64(min(-digits, 308)))
	return math.Round(x/p) * p
}

// roundInt rounds an integer to a multiple of 10^-digits (digits < 0), half away from zero.
func roundInt(x, digits int64) int64 {
	if digits >= 0 {
		return x
	}
	if digits < -18 {
		return 0
	}
	p := int64(math.Pow10(int(-digits)))
	q, r := x/p, x%p
	if 2*abs64(r) >= p {
		if x < 0 {
			q--
		} else {
			q++
		}
	}
	return q * p
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
