package kernel

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// IsFloatToInt reports whether a cast from src to dst is a float-to-integer cast, which
// CastFloatToInt implements (arrow's cast truncates; DuckDB rounds).
func IsFloatToInt(src, dst arrow.DataType) bool {
	return (src.ID() == arrow.FLOAT32 || src.ID() == arrow.FLOAT64) && arrow.IsInteger(dst.ID())
}

// CastFloatToInt casts a float array to an integer type the way DuckDB does: it rounds half
// to even (0.5 → 0, 1.5 → 2, -2.5 → -2) and fails with a Conversion error on NaN, ±Inf or an out-of-range value,
// unless try is set, in which case such rows become NULL.
func CastFloatToInt(mem memory.Allocator, a arrow.Array, dst arrow.DataType, try bool) (arrow.Array, error) {
	get := floatGetter(a)
	lo, hi := intRange(dst)
	switch dst.ID() {
	case arrow.INT8:
		return castFloat[int8](mem, a, dst, get, lo, hi, try)
	case arrow.INT16:
		return castFloat[int16](mem, a, dst, get, lo, hi, try)
	case arrow.INT32:
		return castFloat[int32](mem, a, dst, get, lo, hi, try)
	case arrow.INT64:
		return castFloat[int64](mem, a, dst, get, lo, hi, try)
	case arrow.UINT8:
		return castFloat[uint8](mem, a, dst, get, lo, hi, try)
	case arrow.UINT16:
		return castFloat[uint16](mem, a, dst, get, lo, hi, try)
	case arrow.UINT32:
		return castFloat[uint32](mem, a, dst, get, lo, hi, try)
	case arrow.UINT64:
		return castFloat[uint64](mem, a, dst, get, lo, hi, try)
	}
	return nil, dberr.NotSupported("cast from " + a.DataType().String() + " to " + dst.String())
}

func floatGetter(a arrow.Array) func(int) float64 {
	if a.DataType().ID() == arrow.FLOAT32 {
		v := arrow.GetValues[float32](a.Data(), 1)
		return func(i int) float64 { return float64(v[i]) }
	}
	v := arrow.GetValues[float64](a.Data(), 1)
	return func(i int) float64 { return v[i] }
}

// intRange returns the bounds of dst as floats: lo inclusive, hi exclusive.
func intRange(dst arrow.DataType) (lo, hi float64) {
	bits := dst.(arrow.FixedWidthDataType).BitWidth()
	if isSigned(dst.ID()) {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	}
	return 0, math.Ldexp(1, bits)
}

func castFloat[T signed | unsigned](mem memory.Allocator, a arrow.Array, dst arrow.DataType, get func(int) float64, lo, hi float64, try bool) (arrow.Array, error) {
	n := a.Len()
	out := NewFixed[T](mem, dst, n)
	for i := range n {
		if !IsValid(a, i) {
			out.SetNull(i)
			continue
		}
		v := math.RoundToEven(get(i))
		if math.IsNaN(v) || v < lo || v >= hi {
			if try {
				out.SetNull(i)
				continue
			}
			out.Release()
			return nil, dberr.New(dberr.Conversion, "Type %s with value %v can't be cast because the value is out of range for the destination type %s",
				TypeName(a.DataType()), get(i), TypeName(dst))
		}
		out.Values[i] = T(v)
	}
	return out.Finish(), nil
}
