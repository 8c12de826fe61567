package kernel

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IsBoolToNumber reports whether a cast from 'from' to 'to' is BOOLEAN to an integer or
// float type, which CastBoolToNumber does (arrow-go's cast kernel misreads sliced boolean
// arrays: it ignores the array offset).
func IsBoolToNumber(from, to arrow.DataType) bool {
	return from.ID() == arrow.BOOL && (arrow.IsInteger(to.ID()) || arrow.IsFloating(to.ID())) && to.ID() != arrow.FLOAT16
}

// CastBoolToNumber casts a boolean array to an integer or float type: true is 1, false 0.
func CastBoolToNumber(mem memory.Allocator, a arrow.Array, to arrow.DataType) arrow.Array {
	b := a.(*array.Boolean)
	switch to.ID() {
	case arrow.INT8:
		return boolsTo[int8](mem, b, to)
	case arrow.INT16:
		return boolsTo[int16](mem, b, to)
	case arrow.INT32:
		return boolsTo[int32](mem, b, to)
	case arrow.INT64:
		return boolsTo[int64](mem, b, to)
	case arrow.UINT8:
		return boolsTo[uint8](mem, b, to)
	case arrow.UINT16:
		return boolsTo[uint16](mem, b, to)
	case arrow.UINT32:
		return boolsTo[uint32](mem, b, to)
	case arrow.UINT64:
		return boolsTo[uint64](mem, b, to)
	case arrow.FLOAT32:
		return boolsTo[float32](mem, b, to)
	}
	return boolsTo[float64](mem, b, to)
}

func boolsTo[T number](mem memory.Allocator, b *array.Boolean, dt arrow.DataType) arrow.Array {
	out := NewFixed[T](mem, dt, b.Len())
	for i := range b.Len() {
		switch {
		case b.IsNull(i):
			out.SetNull(i)
		case b.Value(i):
			out.Values[i] = 1
		}
	}
	return out.Finish()
}
