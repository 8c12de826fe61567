package expr

import (
	"context"

	"github.com/flightd/flightd/internal/dberr"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
)

// The list functions (kernels in exec/kernel list_search.go, list_concat.go, list_sort.go).
// list_position is not strict: a NULL needle finds the first NULL element; list_concat is
// not either: a NULL list counts as empty.
func init() {
	for name, def := range map[string]funcDef{
		"array_length":      {fn: listKernel(kernel.ListLength), min: 1, max: 1, strict: true},
		"list_contains":     {fn: listKernel(kernel.ListContains), min: 2, max: 2, strict: true},
		"list_position":     {fn: listKernel(kernel.ListPosition), min: 2, max: 2},
		"array_has_any":     {fn: listKernel(kernel.ArrayHasAny), min: 2, max: 2, strict: true},
		"array_has_all":     {fn: listKernel(kernel.ArrayHasAll), min: 2, max: 2, strict: true},
		"list_concat":       {fn: listBuilder(kernel.ListConcat, 0), min: 1, max: -1},
		"flatten":           {fn: listBuilder(kernel.Flatten, 1), min: 1, max: 1, strict: true},
		"list_sort":         {fn: listBuilder(sortKernel(false), 0), min: 1, max: 1, strict: true},
		"list_reverse_sort": {fn: listBuilder(sortKernel(true), 0), min: 1, max: 1, strict: true},
		"list_distinct":     {fn: listBuilder(distinctKernel, 0), min: 1, max: 1, strict: true},
		"list_min":          {fn: minMaxKernel(false), min: 1, max: 1, strict: true},
		"list_max":          {fn: minMaxKernel(true), min: 1, max: 1, strict: true},
		"list_sum":          {fn: listKernel(kernel.ListSum), min: 1, max: 1, strict: true},
		"list_avg":          {fn: listKernel(kernel.ListAvg), min: 1, max: 1, strict: true},
	} {
		scalarFuncs[name] = def
	}
}

// listKernel adapts an exec/kernel scalar function.
func listKernel(fn kernel.ScalarFunc) scalarFunc {
	return func(_ context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return fn(mem, args)
	}
}

// listBuilder adapts a kernel building lists of type dt: a list of the element type of the
// first argument, taken depth levels down (the planner types the call the same way).
func listBuilder(fn func(context.Context, memory.Allocator, *arrow.ListType, []arrow.Array) (arrow.Array, error), depth int) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		t := args[0].DataType()
		for range depth + 1 {
			l, ok := t.(arrow.ListLikeType)
			if !ok {
				return nil, dberr.New(dberr.Internal, "list function over %s", args[0].DataType())
			}
			t = l.Elem()
		}
		return fn(ctx, mem, arrow.ListOf(t), args)
	}
}

func sortKernel(desc bool) func(context.Context, memory.Allocator, *arrow.ListType, []arrow.Array) (arrow.Array, error) {
	return func(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, args []arrow.Array) (arrow.Array, error) {
		return kernel.ListSort(ctx, mem, dt, args[0], desc)
	}
}

func distinctKernel(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, args []arrow.Array) (arrow.Array, error) {
	return kernel.ListDistinct(ctx, mem, dt, args[0])
}

func minMaxKernel(max bool) scalarFunc {
	return func(ctx context.Context, mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
		return kernel.ListMinMax(ctx, mem, args[0], max)
	}
}
