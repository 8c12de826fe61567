package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// IsDecimalCast reports whether CastDecimal handles src → dst: an integer or a decimal to a
// decimal, or a decimal to an integer.
func IsDecimalCast(src, dst arrow.DataType) bool {
	srcDec, dstDec := src.ID() == arrow.DECIMAL128, dst.ID() == arrow.DECIMAL128
	return (dstDec && (srcDec || arrow.IsInteger(src.ID()))) || (srcDec && arrow.IsInteger(dst.ID()))
}

// CastDecimal casts a to dst (see IsDecimalCast) as DuckDB does: a smaller scale rounds half
// away from zero, and a value that does not fit dst's precision or integer range is a
// Conversion error, or NULL when try is set.
func CastDecimal(mem memory.Allocator, a arrow.Array, dst arrow.DataType, try bool) (arrow.Array, error) {
	get, srcScale := decimalGetter(a)
	switch d := dst.(type) {
	case *arrow.Decimal128Type:
		out := NewFixed[decimal128.Num](mem, dst, a.Len())
		for i := range a.Len() {
			if !IsValid(a, i) {
				out.SetNull(i)
				continue
			}
			v, ok := rescale(get(i), srcScale, d.Scale)
			if ok && v.FitsInPrecision(d.Precision) {
				out.Values[i] = v
				continue
			}
			if !try {
				out.Release()
				return nil, castError(get(i), srcScale, a.DataType(), dst)
			}
			out.SetNull(i)
		}
		return out.Finish(), nil
	}
	switch dst.ID() {
	case arrow.INT8:
		return decimalToInt[int8](mem, a, dst, get, srcScale, try)
	case arrow.INT16:
		return decimalToInt[int16](mem, a, dst, get, srcScale, try)
	case arrow.INT32:
		return decimalToInt[int32](mem, a, dst, get, srcScale, try)
	case arrow.INT64:
		return decimalToInt[int64](mem, a, dst, get, srcScale, try)
	case arrow.UINT8:
		return decimalToInt[uint8](mem, a, dst, get, srcScale, try)
	case arrow.UINT16:
		return decimalToInt[uint16](mem, a, dst, get, srcScale, try)
	case arrow.UINT32:
		return decimalToInt[uint32](mem, a, dst, get, srcScale, try)
	case arrow.UINT64:
		return decimalToInt[uint64](mem, a, dst, get, srcScale, try)
	}
	return nil, dberr.New(dberr.Internal, "decimal cast from %s to %s", a.DataType(), dst)
}

// castError is DuckDB's message for a value that does not fit dst.
func castError(v decimal128.Num, scale int32, src, dst arrow.DataType) error {
	d, toDecimal := dst.(*arrow.Decimal128Type)
	switch {
	case toDecimal && src.ID() != arrow.DECIMAL128:
		return dberr.New(dberr.Conversion, "Could not cast value %s to DECIMAL(%d,%d)", v.ToString(0), d.Precision, d.Scale)
	case toDecimal:
		return dberr.New(dberr.Conversion, "Casting value \"%s\" to type DECIMAL(%d,%d) failed: value is out of range!", v.ToString(scale), d.Precision, d.Scale)
	}
	r, _ := rescale(v, scale, 0)
	return dberr.New(dberr.Conversion, "Failed to cast decimal value %s to type %s", r.ToString(0), TypeName(dst))
}

// decimalToInt rounds each decimal to an integer of type T.
func decimalToInt[T signed | unsigned](mem memory.Allocator, a arrow.Array, dst arrow.DataType, get func(int) decimal128.Num, scale int32, try bool) (arrow.Array, error) {
	out := NewFixed[T](mem, dst, a.Len())
	for i := range a.Len() {
		if !IsValid(a, i) {
			out.SetNull(i)
			continue
		}
		v, ok := rescale(get(i), scale, 0)
		if ok {
			var t T
			t, ok = intOf[T](v)
			out.Values[i] = t
		}
		if ok {
			continue
		}
		if !try {
			out.Release()
			return nil, castError(get(i), scale, a.DataType(), dst)
		}
		out.SetNull(i)
	}
	return out.Finish(), nil
}

// intOf converts an integral decimal to T when it is in T's range.
func intOf[T signed | unsigned](v decimal128.Num) (T, bool) {
	if fitsInt64(v) {
		x := int64(v.LowBits())
		t := T(x)
		return t, int64(t) == x && (x >= 0) == (t >= 0)
	}
	if v.HighBits() == 0 { // above MaxInt64, below 2^64
		u := v.LowBits()
		t := T(u)
		return t, uint64(t) == u && t >= 0
	}
	return 0, false
}

// rescale moves v from scale from to scale to (rounding half away from zero when to is
// smaller); ok is false when the result needs more than 38 digits.
func rescale(v decimal128.Num, from, to int32) (decimal128.Num, bool) {
	switch {
	case to == from:
		return v, true
	case to > from:
		d := to - from
		if d > maxDecimalDigits || !v.FitsInPrecision(maxDecimalDigits-d) {
			return v, false
		}
		return v.IncreaseScaleBy(d), true
	}
	d := from - to
	if d <= 18 && fitsInt64(v) {
		x, p := int64(v.LowBits()), pow10i64(d)
		q, r := x/p, x%p
		if 2*abs64(r) >= p {
			if x < 0 {
				q--
			} else {
				q++
			}
		}
		return decimal128.FromI64(q), true
	}
	return v.ReduceScaleBy(d, true), true
}

func pow10i64(n int32) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// decimalGetter returns a reader of a's values as decimal128 numbers and their scale (0 for
// integers).
func decimalGetter(a arrow.Array) (func(int) decimal128.Num, int32) {
	switch dt := a.DataType().(type) {
	case *arrow.Decimal128Type:
		vs := arrow.GetValues[decimal128.Num](a.Data(), 1)
		return func(i int) decimal128.Num { return vs[i] }, dt.Scale
	}
	switch a.DataType().ID() {
	case arrow.INT8:
		return signedGetter[int8](a), 0
	case arrow.INT16:
		return signedGetter[int16](a), 0
	case arrow.INT32:
		return signedGetter[int32](a), 0
	case arrow.INT64:
		return signedGetter[int64](a), 0
	case arrow.UINT8:
		return unsignedGetter[uint8](a), 0
	case arrow.UINT16:
		return unsignedGetter[uint16](a), 0
	case arrow.UINT32:
		return unsignedGetter[uint32](a), 0
	default:
		return unsignedGetter[uint64](a), 0
	}
}

func signedGetter[T signed](a arrow.Array) func(int) decimal128.Num {
	vs := arrow.GetValues[T](a.Data(), 1)
	return func(i int) decimal128.Num { return decimal128.FromI64(int64(vs[i])) }
}

func unsignedGetter[T unsigned](a arrow.Array) func(int) decimal128.Num {
	vs := arrow.GetValues[T](a.Data(), 1)
	return func(i int) decimal128.Num { return decimal128.FromU64(uint64(vs[i])) }
}
