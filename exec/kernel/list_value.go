package kernel

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// ListValue builds list_value(x1, ..., xk) over n rows: row i is the list [x1[i], ...,
// xk[i]] (never NULL; NULL items stay NULL elements, as DuckDB's [a, b]). Every item has
// the list's element type.
func ListValue(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, items []arrow.Array, n int) (arrow.Array, error) {
	k := len(items)
	for i, it := range items {
		if it.Len() != n || !arrow.TypeEqual(it.DataType(), dt.Elem()) {
			return nil, dberr.New(dberr.Internal, "list_value: item %d is %s of %d rows, want %s of %d", i, it.DataType(), it.Len(), dt.Elem(), n)
		}
	}
	all, err := array.Concatenate(items, mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_value: concatenate items")
	}
	defer all.Release()
	// Row i's elements sit at j*n+i in the concatenation.
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	ib.Reserve(n * k)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			ib.UnsafeAppend(int64(j*n + i))
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	vals, err := compute.TakeArray(compute.WithAllocator(ctx, mem), all, idx)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_value: gather items")
	}
	defer vals.Release()
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	for i := range offs {
		offs[i] = int32(i * k)
	}
	data := array.NewData(dt, n, []*memory.Buffer{nil, offsets}, []arrow.ArrayData{vals.Data()}, 0, 0)
	offsets.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}
