package kernel

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// ListConcat and Flatten on sliced inputs with NULL lists, NULL elements and empty lists
// (DuckDB's answers: a NULL list is empty in list_concat; flatten skips NULL inner lists).
func TestListConcatFlatten(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	li64 := arrow.ListOf(i64)
	cases := []struct {
		name string
		fn   func(context.Context, memory.Allocator, *arrow.ListType, []arrow.Array) (arrow.Array, error)
		in   []arrow.DataType
		js   []string
		want string
	}{
		{"concat", ListConcat, []arrow.DataType{li64, li64},
			[]string{`[[0], [1, null], null, [], null]`, `[[0], [2], [3], [], null]`},
			`[[1, null, 2], [3], [], []]`},
		{"concat-one", ListConcat, []arrow.DataType{li64}, []string{`[[0], [4, 5], null]`}, `[[4, 5], []]`},
		{"flatten", Flatten, []arrow.DataType{arrow.ListOf(li64)},
			[]string{`[[[0]], [[1, 2], null, [3, null]], null, [], [[], [6]]]`},
			`[[1, 2, 3, null], null, [], [6]]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			args := make([]arrow.Array, len(c.in))
			for i, dt := range c.in {
				args[i] = slicedJSON(t, mem, dt, c.js[i])
				defer args[i].Release()
			}
			got, err := c.fn(context.Background(), mem, li64, args)
			require.NoError(t, err)
			defer got.Release()
			requireJSON(t, mem, li64, c.want, got)
		})
	}
}

// ListSort (NULLs last, NaN above +Inf) and ListDistinct (first-occurrence order, NULLs
// dropped) on sliced inputs.
func TestListSortDistinct(t *testing.T) {
	f64 := arrow.ListOf(arrow.PrimitiveTypes.Float64)
	str := arrow.ListOf(arrow.BinaryTypes.String)
	cases := []struct {
		name     string
		dt       *arrow.ListType
		in, want string
		run      func(context.Context, memory.Allocator, *arrow.ListType, arrow.Array) (arrow.Array, error)
	}{
		{"sort", f64, `[[9], [3, null, "NaN", -1, "-Inf"], null, []]`, `[["-Inf", -1, 3, "NaN", null], null, []]`,
			func(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, a arrow.Array) (arrow.Array, error) {
				return ListSort(ctx, mem, dt, a, false)
			}},
		{"reverse-sort", str, `[["z"], ["b", null, "c", "a"], null]`, `[["c", "b", "a", null], null]`,
			func(ctx context.Context, mem memory.Allocator, dt *arrow.ListType, a arrow.Array) (arrow.Array, error) {
				return ListSort(ctx, mem, dt, a, true)
			}},
		{"distinct", str, `[["z"], ["b", null, "a", "b", null, "a", "c"], null, [null]]`, `[["b", "a", "c"], null, []]`, ListDistinct},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := slicedJSON(t, mem, c.dt, c.in)
			defer a.Release()
			got, err := c.run(context.Background(), mem, c.dt, a)
			require.NoError(t, err)
			defer got.Release()
			requireJSON(t, mem, c.dt, c.want, got)
		})
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nested := fromJSON(t, mem, arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), `[[[1]]]`)
	defer nested.Release()
	_, err := ListSort(context.Background(), mem, arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), nested, false)
	require.ErrorContains(t, err, "not supported yet")
}
