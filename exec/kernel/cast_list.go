package kernel

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// IsListToArrayCast reports whether src to dst casts a list to a fixed-size list
// (FLOAT[] to FLOAT[128]), which arrow-go's cast does not implement.
func IsListToArrayCast(src, dst arrow.DataType) bool {
	_, ok := dst.(*arrow.FixedSizeListType)
	return ok && (src.ID() == arrow.LIST || src.ID() == arrow.LARGE_LIST)
}

// CastListToArray casts a list array to a fixed-size list of dst's size and element
// type. Every non-NULL list must have exactly that many items; a NULL list becomes a NULL
// array. A list of another length is DuckDB's Conversion error.
func CastListToArray(ctx context.Context, mem memory.Allocator, a arrow.Array, dst arrow.DataType) (arrow.Array, error) {
	list, ok := a.(array.ListLike)
	d := dst.(*arrow.FixedSizeListType)
	if !ok {
		return nil, dberr.New(dberr.Internal, "cast %s to %s: not a list", a.DataType(), dst)
	}
	n := int64(d.Len())
	parts := make([]arrow.Array, 0, a.Len())
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	child := list.ListValues()
	for i := range a.Len() {
		if a.IsNull(i) {
			parts = append(parts, array.MakeArrayOfNull(mem, child.DataType(), int(n)))
			continue
		}
		start, end := list.ValueOffsets(i)
		if end-start != n {
			return nil, dberr.New(dberr.Conversion, "Cannot cast list with length %d to array with length %d", end-start, n)
		}
		parts = append(parts, array.NewSlice(child, start, end))
	}
	var flat arrow.Array
	if len(parts) == 0 {
		flat = array.MakeArrayOfNull(mem, child.DataType(), 0)
	} else {
		var err error
		if flat, err = array.Concatenate(parts, mem); err != nil {
			return nil, dberr.Wrap(dberr.Internal, err, "cast %s to %s", a.DataType(), dst)
		}
	}
	defer flat.Release()
	values, err := compute.CastArray(compute.WithAllocator(ctx, mem), flat, compute.SafeCastOptions(d.Elem()))
	if err != nil {
		return nil, dberr.Wrap(dberr.Conversion, err, "Could not convert %s to %s", a.DataType(), dst)
	}
	defer values.Release()
	var validity *memory.Buffer
	if a.NullN() > 0 {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(a.Len()))))
		defer validity.Release()
		bits := validity.Bytes()
		for i := range a.Len() {
			bitutil.SetBitTo(bits, i, a.IsValid(i))
		}
	}
	// The values start at row 0 of a (not at its offset), so the result has offset 0.
	data := array.NewData(dst, a.Len(), []*memory.Buffer{validity}, []arrow.ArrayData{values.Data()}, a.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
