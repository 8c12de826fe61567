package kernel

import (
	"context"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// SliceBounds maps DuckDB's slice bounds over a value of n elements to the half-open
// 0-based range [lo, hi): positions are 1-based and inclusive, negative ones count from
// the end, 0 means the start, and out-of-range bounds are clamped.
func SliceBounds(n, begin, end int64) (lo, hi int64) {
	if begin < 0 {
		begin = max(n+begin+1, 1)
	}
	if end < 0 {
		end = n + end + 1
	}
	lo = min(max(begin, 1)-1, n)
	hi = max(min(end, n), lo)
	return lo, hi
}

// ArraySlice is array_slice(x, begin, end), x[begin:end], over a string or list array x
// and BIGINT bounds (planner/functions list_slice.go types it): a NULL argument gives
// NULL, positions follow SliceBounds; lists keep their type.
func ArraySlice(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	if len(args) != 3 {
		return nil, dberr.New(dberr.Internal, "array_slice with %d arguments", len(args))
	}
	begin, bok := args[1].(*array.Int64)
	end, eok := args[2].(*array.Int64)
	if !bok || !eok {
		return nil, dberr.New(dberr.Internal, "array_slice bounds %s, %s", args[1].DataType(), args[2].DataType())
	}
	if l, ok := args[0].(array.ListLike); ok {
		return sliceLists(mem, l, begin, end)
	}
	get, err := strGetter(args[0])
	if err != nil {
		return nil, err
	}
	return buildStrings(mem, args, args[0].Len(), func(i int) (string, bool, error) {
		s := get(i)
		lo, hi := SliceBounds(int64(utf8.RuneCountInString(s)), begin.Value(i), end.Value(i))
		return runeSlice(s, int(lo), int(hi)), true, nil
	})
}

// sliceLists slices every list of l; the result has l's type (lists, large lists).
func sliceLists(mem memory.Allocator, l array.ListLike, begin, end *array.Int64) (arrow.Array, error) {
	n := l.Len()
	valid := make([]bool, n)
	offsets := make([]int64, n+1)
	idx := array.NewInt64Builder(mem)
	defer idx.Release()
	for i := range n {
		offsets[i+1] = offsets[i]
		if !IsValid(l, i) || !IsValid(begin, i) || !IsValid(end, i) {
			continue
		}
		valid[i] = true
		start, stop := l.ValueOffsets(i)
		lo, hi := SliceBounds(stop-start, begin.Value(i), end.Value(i))
		for k := start + lo; k < start+hi; k++ {
			idx.Append(k)
		}
		offsets[i+1] += hi - lo
	}
	ia := idx.NewArray()
	defer ia.Release()
	vals, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), l.ListValues(), ia)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "array_slice")
	}
	defer vals.Release()
	return buildList(mem, l.DataType(), valid, offsets, vals)
}

// buildList assembles a list (or large list) array of type dt from validity, offsets and
// the child values.
func buildList(mem memory.Allocator, dt arrow.DataType, valid []bool, offsets []int64, vals arrow.Array) (arrow.Array, error) {
	n := len(valid)
	bitmap := memory.NewResizableBuffer(mem)
	bitmap.Resize(int((n + 7) / 8))
	bits := bitmap.Bytes()
	clear(bits)
	nulls := 0
	for i, v := range valid {
		if v {
			bits[i/8] |= 1 << (i % 8)
		} else {
			nulls++
		}
	}
	offBuf := memory.NewResizableBuffer(mem)
	switch dt.ID() {
	case arrow.LIST:
		offBuf.Resize((n + 1) * 4)
		out := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
		for i, o := range offsets {
			out[i] = int32(o)
		}
	case arrow.LARGE_LIST:
		offBuf.Resize((n + 1) * 8)
		copy(arrow.Int64Traits.CastFromBytes(offBuf.Bytes()), offsets)
	default:
		bitmap.Release()
		offBuf.Release()
		return nil, dberr.NotSupported("slices of " + dt.String())
	}
	data := array.NewData(dt, n, []*memory.Buffer{bitmap, offBuf}, []arrow.ArrayData{vals.Data()}, nulls, 0)
	bitmap.Release()
	offBuf.Release()
	defer data.Release()
	return array.MakeFromData(data), nil
}
