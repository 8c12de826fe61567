package kernel

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// listGather assembles a list array of type dt: row i holds the elements at positions
// idx[offs[i]:offs[i+1]] of vals, and is NULL where null[i] (null may be nil).
type listGather struct {
	idx  *array.Int64Builder
	offs []int32
	null []bool
}

func newListGather(mem memory.Allocator, n int) *listGather {
	return &listGather{idx: array.NewInt64Builder(mem), offs: append(make([]int32, 0, n+1), 0)}
}

// endRow closes the current row.
func (g *listGather) endRow() { g.offs = append(g.offs, int32(g.idx.Len())) }

// finish builds the list array from vals, releasing g's builder.
func (g *listGather) finish(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, vals arrow.Array) (arrow.Array, error) {
	defer g.idx.Release()
	idx := g.idx.NewArray()
	defer idx.Release()
	elems, err := compute.TakeArray(compute.WithAllocator(ctx, mem), vals, idx)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "gather list elements")
	}
	defer elems.Release()
	n := len(g.offs) - 1
	offsets := memory.NewResizableBuffer(mem)
	defer offsets.Release()
	offsets.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	copy(arrow.Int32Traits.CastFromBytes(offsets.Bytes()), g.offs)
	var validity *memory.Buffer
	nulls := 0
	if g.null != nil {
		validity = memory.NewResizableBuffer(mem)
		defer validity.Release()
		validity.Resize(int((n + 7) / 8))
		bits := validity.Bytes()
		clear(bits)
		for i, isNull := range g.null {
			if isNull {
				nulls++
			} else {
				bits[i/8] |= 1 << (i % 8)
			}
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, offsets}, []arrow.ArrayData{elems.Data()}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// ListConcat is list_concat(l1, ..., lk) (list_cat, array_concat, || on lists): the
// elements of every list in turn; a NULL list counts as empty, so the result is never
// NULL (DuckDB 2.0: list_concat(NULL, NULL) is []). Every argument has dt's element type.
func ListConcat(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, args []arrow.Array) (arrow.Array, error) {
	lists := make([]listLike, len(args))
	children := make([]arrow.Array, len(args))
	base := make([]int64, len(args))
	var total int64
	for k := range args {
		l, err := listOf("list_concat", args, k)
		if err != nil {
			return nil, err
		}
		if l.Len() != args[0].Len() {
			return nil, dberr.New(dberr.Internal, "list_concat: arguments of %d and %d rows", args[0].Len(), l.Len())
		}
		lists[k], children[k], base[k] = l, l.ListValues(), total
		total += int64(children[k].Len())
	}
	vals, err := array.Concatenate(children, mem)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_concat: concatenate elements")
	}
	defer vals.Release()
	n := args[0].Len()
	g := newListGather(mem, n)
	for i := range n {
		for k, l := range lists {
			if !IsValid(l, i) {
				continue
			}
			lo, hi := l.ValueOffsets(i)
			for j := lo; j < hi; j++ {
				g.idx.Append(base[k] + j)
			}
		}
		g.endRow()
	}
	return g.finish(ctx, mem, dt, vals)
}

// Flatten is flatten(l) over a list of lists: the elements of l's inner lists in order,
// skipping NULL inner lists; NULL when l is NULL.
func Flatten(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, args []arrow.Array) (arrow.Array, error) {
	outer, err := listOf("flatten", args, 0)
	if err != nil {
		return nil, err
	}
	inner, ok := outer.ListValues().(listLike)
	if !ok {
		return nil, dberr.New(dberr.Internal, "flatten: elements are %s, not lists", outer.ListValues().DataType())
	}
	n := outer.Len()
	g := newListGather(mem, n)
	if outer.NullN() > 0 {
		g.null = make([]bool, n)
	}
	for i := range n {
		if !IsValid(outer, i) {
			g.null[i] = true
			g.endRow()
			continue
		}
		lo, hi := outer.ValueOffsets(i)
		for j := lo; j < hi; j++ {
			if !IsValid(inner, int(j)) {
				continue
			}
			a, b := inner.ValueOffsets(int(j))
			for e := a; e < b; e++ {
				g.idx.Append(e)
			}
		}
		g.endRow()
	}
	return g.finish(ctx, mem, dt, inner.ListValues())
}
