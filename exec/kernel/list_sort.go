package kernel

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// elemCompare returns a three-way comparison of two non-NULL values of arr by DuckDB's
// ordering (NaN above every other float). Nested element types are not supported yet.
func elemCompare(arr arrow.Array) (func(i, j int) int, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return ordered(a.Int8Values()), nil
	case *array.Int16:
		return ordered(a.Int16Values()), nil
	case *array.Int32:
		return ordered(a.Int32Values()), nil
	case *array.Int64:
		return ordered(a.Int64Values()), nil
	case *array.Uint8:
		return ordered(a.Uint8Values()), nil
	case *array.Uint16:
		return ordered(a.Uint16Values()), nil
	case *array.Uint32:
		return ordered(a.Uint32Values()), nil
	case *array.Uint64:
		return ordered(a.Uint64Values()), nil
	case *array.Float32:
		return floats(a.Float32Values()), nil
	case *array.Float64:
		return floats(a.Float64Values()), nil
	case *array.Date32:
		return ordered(a.Date32Values()), nil
	case *array.Date64:
		return ordered(a.Date64Values()), nil
	case *array.Timestamp:
		return ordered(a.TimestampValues()), nil
	case *array.Time64:
		return ordered(a.Time64Values()), nil
	case *array.Time32:
		return ordered(a.Time32Values()), nil
	case *array.Boolean:
		return func(i, j int) int { return boolCmp(a.Value(i), a.Value(j)) }, nil
	case *array.String:
		return func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }, nil
	case *array.LargeString:
		return func(i, j int) int { return cmp.Compare(a.Value(i), a.Value(j)) }, nil
	case *array.Binary:
		return func(i, j int) int { return bytes.Compare(a.Value(i), a.Value(j)) }, nil
	case *array.Null: // every element is NULL: never compared
		return func(int, int) int { return 0 }, nil
	case *array.Decimal128:
		return func(i, j int) int { return a.Value(i).Cmp(a.Value(j)) }, nil
	}
	return nil, dberr.NotSupported("list_sort of " + arr.DataType().String() + " elements")
}

func ordered[T cmp.Ordered](v []T) func(i, j int) int {
	return func(i, j int) int { return cmp.Compare(v[i], v[j]) }
}

// floats orders floats with NaN above +Inf (cmp.Compare puts NaN first).
func floats[T float32 | float64](v []T) func(i, j int) int {
	return func(i, j int) int {
		x, y := float64(v[i]), float64(v[j])
		if xn, yn := math.IsNaN(x), math.IsNaN(y); xn || yn {
			return boolCmp(xn, yn)
		}
		return cmp.Compare(x, y)
	}
}

func boolCmp(x, y bool) int {
	switch {
	case x == y:
		return 0
	case y:
		return -1
	}
	return 1
}

// ListSort is list_sort(l) (array_sort; list_reverse_sort when desc): l's elements in
// ascending (descending) order, NULL elements last as in DuckDB 2.0; NULL for a NULL list.
// The sort is stable; one scratch slice is reused across rows.
func ListSort(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, l arrow.Array, desc bool) (arrow.Array, error) {
	list, err := listOf("list_sort", []arrow.Array{l}, 0)
	if err != nil {
		return nil, err
	}
	vals := list.ListValues()
	compare, err := elemCompare(vals)
	if err != nil {
		return nil, err
	}
	order := func(i, j int64) int {
		vi, vj := IsValid(vals, int(i)), IsValid(vals, int(j))
		if !vi || !vj {
			return boolCmp(!vi, !vj)
		}
		if desc {
			return compare(int(j), int(i))
		}
		return compare(int(i), int(j))
	}
	return gatherRows(ctx, mem, dt, list, func(row []int64) []int64 {
		slices.SortStableFunc(row, order)
		return row
	})
}

// ListDistinct is list_distinct(l): l's distinct non-NULL elements in the order of their
// first occurrence (DuckDB leaves the order unspecified); NULL for a NULL list.
func ListDistinct(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, l arrow.Array) (arrow.Array, error) {
	list, err := listOf("list_distinct", []arrow.Array{l}, 0)
	if err != nil {
		return nil, err
	}
	vals := list.ListValues()
	keys := &RowKeys{}
	if err := encodeAll(keys, vals); err != nil {
		return nil, err
	}
	byKey := func(i, j int64) int {
		if c := bytes.Compare(keys.Key(int(i)), keys.Key(int(j))); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	}
	return gatherRows(ctx, mem, dt, list, func(row []int64) []int64 {
		slices.SortFunc(row, byKey)
		kept := row[:0]
		for k, e := range row {
			if IsValid(vals, int(e)) && (k == 0 || !bytes.Equal(keys.Key(int(row[k-1])), keys.Key(int(e)))) {
				kept = append(kept, e)
			}
		}
		slices.Sort(kept)
		return kept
	})
}

// gatherRows builds a list per row of list from the element positions arrange returns
// given the row's positions (a scratch slice it may reorder and shorten).
func gatherRows(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, list listLike, arrange func([]int64) []int64) (arrow.Array, error) {
	n := list.Len()
	g := newListGather(mem, n)
	if list.NullN() > 0 {
		g.null = make([]bool, n)
	}
	var scratch []int64
	for i := range n {
		if !IsValid(list, i) {
			g.null[i] = true
			g.endRow()
			continue
		}
		lo, hi := list.ValueOffsets(i)
		scratch = scratch[:0]
		for j := lo; j < hi; j++ {
			scratch = append(scratch, j)
		}
		g.idx.AppendValues(arrange(scratch), nil)
		g.endRow()
	}
	return g.finish(ctx, mem, dt, list.ListValues())
}
