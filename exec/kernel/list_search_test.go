package kernel

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// fromJSON builds an array of dt from JSON.
func fromJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	arr, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	require.NoError(t, err)
	return arr
}

// slicedJSON builds an array of dt from JSON without its first row, so that its offsets
// do not start at 0. The caller releases it.
func slicedJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	full := fromJSON(t, mem, dt, js)
	defer full.Release()
	return array.NewSlice(full, 1, int64(full.Len()))
}

// requireJSON checks got against the array of dt in JSON (NaNs equal).
func requireJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string, got arrow.Array) {
	t.Helper()
	want := fromJSON(t, mem, dt, js)
	defer want.Release()
	require.True(t, array.ApproxEqual(want, got, array.WithNaNsEqual(true)), "got %s, want %s", got, want)
}

// The list search kernels over lists with NULL lists, NULL elements and empty lists, on
// sliced inputs (offsets not starting at 0), compared with DuckDB's answers.
func TestListSearch(t *testing.T) {
	intList := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	strList := arrow.ListOf(arrow.BinaryTypes.String)
	cases := []struct {
		name       string
		fn         ScalarFunc
		a, b       arrow.DataType
		ajs, bjs   string
		want       string
		wantResult arrow.DataType
	}{
		{"len", ListLength, intList, nil, `[[9], [1, 2, null], null, [], [7]]`, ``, `[3, null, 0, 1]`, arrow.PrimitiveTypes.Int64},
		{"contains", ListContains, intList, arrow.PrimitiveTypes.Int64,
			`[[9], [1, 2, null], [1, null], null, [], [5, 6], [5]]`, `[0, 2, 3, 1, 1, null, 5]`,
			`[true, false, null, false, null, true]`, arrow.FixedWidthTypes.Boolean},
		{"contains-strings", ListContains, strList, arrow.BinaryTypes.String,
			`[["x"], ["a", "bb"], ["bb", null], null]`, `["x", "bb", "b", "a"]`,
			`[true, false, null]`, arrow.FixedWidthTypes.Boolean},
		{"position", ListPosition, intList, arrow.PrimitiveTypes.Int64,
			`[[9], [1, 2, null], [1, null], [4, null, 4], null, [5]]`, `[0, 2, null, null, 1, 7]`,
			`[2, 2, 2, null, null]`, arrow.PrimitiveTypes.Int32},
		{"has-any", ArrayHasAny, strList, strList,
			`[["x"], ["a", "b"], ["a", null], ["a"], null, [], ["c"]]`,
			`[["x"], ["z", "b"], [null], [], ["a"], ["a"], ["c", null]]`,
			`[true, false, false, null, false, true]`, arrow.FixedWidthTypes.Boolean},
		{"has-all", ArrayHasAll, strList, strList,
			`[["x"], ["a", "b"], ["a", null], ["a"], ["a"], null, ["c", "d"]]`,
			`[["x"], ["b", "a"], [null], [], ["a", "z"], ["a"], ["d", null, "c"]]`,
			`[true, true, true, false, null, true]`, arrow.FixedWidthTypes.Boolean},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := slicedJSON(t, mem, c.a, c.ajs)
			defer a.Release()
			args := []arrow.Array{a}
			if c.b != nil {
				b := slicedJSON(t, mem, c.b, c.bjs)
				defer b.Release()
				args = append(args, b)
			}
			got, err := c.fn(mem, args)
			require.NoError(t, err)
			defer got.Release()
			requireJSON(t, mem, c.wantResult, c.want, got)
		})
	}
}

// A kernel given a non-list argument fails instead of panicking.
func TestListSearchNotAList(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := fromJSON(t, mem, arrow.PrimitiveTypes.Int64, `[1]`)
	defer a.Release()
	for _, fn := range []ScalarFunc{ListContains, ListPosition, ArrayHasAll} {
		_, err := fn(mem, []arrow.Array{a, a})
		require.ErrorContains(t, err, "not a list")
	}
	_, err := ListLength(mem, []arrow.Array{a})
	require.ErrorContains(t, err, "not a list")
}
