package kernel

import (
	"cmp"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/decfloat"
)

// compareOps numbers the comparison function names CompareFast accepts (arrow's names).
var compareOps = map[string]int{
	"equal": 0, "not_equal": 1, "less": 2, "less_equal": 3, "greater": 4, "greater_equal": 5,
}

// CompareFast compares two arrays of the same type, one of int32, date32, int64, float64
// (IEEE: NaN is unordered, as arrow's kernels) and decimal128 (same scale), with one of
// arrow's comparison names (equal, not_equal, less, less_equal, greater, greater_equal),
// in one loop per call. A row is NULL when either side is. ok is false for other types or
// names: the caller uses arrow's kernels then.
func CompareFast(mem memory.Allocator, fn string, a, b arrow.Array) (out arrow.Array, ok bool) {
	op, known := compareOps[fn]
	if !known || a.Len() != b.Len() || !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return nil, false
	}
	n := a.Len()
	res := NewBools(mem, n)
	dst := res.vals.Bytes()
	switch a.DataType().ID() {
	case arrow.INT32, arrow.DATE32:
		compareInto(op, arrow.GetValues[int32](a.Data(), 1), arrow.GetValues[int32](b.Data(), 1), dst)
	case arrow.INT64:
		compareInto(op, arrow.GetValues[int64](a.Data(), 1), arrow.GetValues[int64](b.Data(), 1), dst)
	case arrow.FLOAT64:
		compareInto(op, arrow.GetValues[float64](a.Data(), 1), arrow.GetValues[float64](b.Data(), 1), dst)
	case arrow.DECIMAL128:
		compareDecimals(op, arrow.GetValues[decimal128.Num](a.Data(), 1), arrow.GetValues[decimal128.Num](b.Data(), 1), dst)
	default:
		res.Release()
		return nil, false
	}
	validity, nulls := andValidity(mem, a, b)
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{validity, res.vals}, nil, nulls, 0)
	res.vals.Release()
	if validity != nil {
		validity.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), true
}

// compareInto sets bit i of dst (zeroed) when x[i] op y[i].
func compareInto[T cmp.Ordered](op int, x, y []T, dst []byte) {
	switch op {
	case 0:
		setWhere(dst, x, y, eqOp[T]{})
	case 1:
		setWhere(dst, x, y, neOp[T]{})
	case 2:
		setWhere(dst, x, y, ltOp[T]{})
	case 3:
		setWhere(dst, x, y, leOp[T]{})
	case 4:
		setWhere(dst, x, y, ltOp[T]{}.flip())
	default:
		setWhere(dst, x, y, leOp[T]{}.flip())
	}
}

// Comparison operators as zero-size types, so that setWhere is instantiated (and the
// comparison inlined) once per operator.
type (
	eqOp[T comparable]         struct{}
	neOp[T comparable]         struct{}
	ltOp[T cmp.Ordered]        struct{}
	leOp[T cmp.Ordered]        struct{}
	flipped[T any, O cmpOp[T]] struct{ op O }
	decLt                      struct{}
	decLe                      struct{}
)

type cmpOp[T any] interface{ test(a, b T) bool }

func (eqOp[T]) test(a, b T) bool            { return a == b }
func (neOp[T]) test(a, b T) bool            { return a != b }
func (ltOp[T]) test(a, b T) bool            { return a < b }
func (leOp[T]) test(a, b T) bool            { return a <= b }
func (f flipped[T, O]) test(a, b T) bool    { return f.op.test(b, a) }
func (ltOp[T]) flip() flipped[T, ltOp[T]]   { return flipped[T, ltOp[T]]{} }
func (leOp[T]) flip() flipped[T, leOp[T]]   { return flipped[T, leOp[T]]{} }
func (decLt) test(a, b decimal128.Num) bool { return decimalCmp(a, b) < 0 }
func (decLe) test(a, b decimal128.Num) bool { return decimalCmp(a, b) <= 0 }

func decimalCmp(a, b decimal128.Num) int {
	if a.HighBits() != b.HighBits() {
		return cmp.Compare(a.HighBits(), b.HighBits())
	}
	return cmp.Compare(a.LowBits(), b.LowBits())
}

// compareDecimals is compareInto for decimal128 values of one scale.
func compareDecimals(op int, x, y []decimal128.Num, dst []byte) {
	switch op {
	case 0:
		setWhere(dst, x, y, eqOp[decimal128.Num]{})
	case 1:
		setWhere(dst, x, y, neOp[decimal128.Num]{})
	case 2:
		setWhere(dst, x, y, decLt{})
	case 3:
		setWhere(dst, x, y, decLe{})
	case 4:
		setWhere(dst, x, y, flipped[decimal128.Num, decLt]{})
	default:
		setWhere(dst, x, y, flipped[decimal128.Num, decLe]{})
	}
}

// setWhere sets bit i of dst when op.test(x[i], y[i]), a byte at a time.
func setWhere[T any, O cmpOp[T]](dst []byte, x, y []T, op O) {
	n := len(x)
	y = y[:n]
	for base := 0; base < n; base += 8 {
		var v byte
		for k := range min(8, n-base) {
			if op.test(x[base+k], y[base+k]) {
				v |= 1 << k
			}
		}
		dst[base/8] = v
	}
}

// DecimalToFloat64 casts a decimal128 array to float64 (or float32) with the value
// internal/decfloat gives, the one the planner folds constants to: the double nearest each
// decimal (for float32, that double rounded). ok is false for other types.
func DecimalToFloat64(mem memory.Allocator, a arrow.Array, dst arrow.DataType) (arrow.Array, bool) {
	d, isDec := a.DataType().(*arrow.Decimal128Type)
	if !isDec || dst.ID() != arrow.FLOAT64 && dst.ID() != arrow.FLOAT32 {
		return nil, false
	}
	vs := arrow.GetValues[decimal128.Num](a.Data(), 1)
	if dst.ID() == arrow.FLOAT32 {
		out := NewFixed[float32](mem, dst, a.Len())
		for i, v := range vs {
			if a.IsNull(i) {
				out.SetNull(i)
				continue
			}
			out.Values[i] = float32(decimalFloat(v, d.Scale))
		}
		return out.Finish(), true
	}
	out := NewFixed[float64](mem, dst, a.Len())
	hasNulls := a.NullN() > 0
	for i, v := range vs {
		if hasNulls && !a.IsValid(i) {
			out.SetNull(i)
			continue
		}
		out.Values[i] = decimalFloat(v, d.Scale)
	}
	return out.Finish(), true
}

// decimalFloat is decfloat.ToFloat64 with its common case (an int64 below 2^53) inline.
func decimalFloat(v decimal128.Num, scale int32) float64 {
	if x := int64(v.LowBits()); fitsInt64(v) {
		if f, ok := decfloat.Fast(x, scale); ok {
			return f
		}
	}
	return decfloat.ToFloat64(v, scale)
}
