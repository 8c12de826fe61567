package kernel

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestSliceBounds: DuckDB's slice positions (values checked against DuckDB 2.0).
func TestSliceBounds(t *testing.T) {
	const maxI = int64(1<<63 - 1)
	cases := []struct{ n, begin, end, lo, hi int64 }{
		{4, 2, 3, 1, 3}, {4, 1, maxI, 0, 4}, {4, 3, maxI, 2, 4}, {4, -2, maxI, 2, 4},
		{4, 2, -2, 1, 3}, {4, 3, 2, 2, 2}, {4, 0, 2, 0, 2}, {4, 2, 10, 1, 4},
		{4, -10, 2, 0, 2}, {4, -10, -8, 0, 0}, {4, 0, 0, 0, 0}, {4, 5, 6, 4, 4},
		{4, -1, -1, 3, 4}, {4, 1, -5, 0, 0}, {4, -4, 1, 0, 1}, {0, 1, 3, 0, 0},
		{4, -maxI - 1, -maxI - 1, 0, 0},
	}
	for _, c := range cases {
		lo, hi := SliceBounds(c.n, c.begin, c.end)
		require.Equal(t, [2]int64{c.lo, c.hi}, [2]int64{lo, hi}, "n=%d [%d:%d]", c.n, c.begin, c.end)
	}
}

// TestSliceFunc runs array_slice over lists, large lists and strings, NULLs included.
func TestSliceFunc(t *testing.T) {
	cases := []struct {
		name         string
		dt           arrow.DataType
		vals         string
		begins, ends string
		want         string
	}{
		{"list", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, 2, 3, 4], [5], null, [6, null, 7], []]`,
			`[2, 1, 1, -2, 1]`, `[3, -1, 2, 9, 1]`, `[[2 3] [5] (null) [(null) 7] []]`},
		{"large list", arrow.LargeListOf(arrow.BinaryTypes.String), `[["a", "b", "c"], ["d"]]`,
			`[-1, null]`, `[-1, 1]`, `[["c"] (null)]`},
		{"string", arrow.BinaryTypes.String, `["hello", "héllo", null, "ab", ""]`,
			`[2, 2, 1, 3, 1]`, `[3, 3, 2, 9, 2]`, `["el" "él" (null) "" ""]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			fromJSON := func(dt arrow.DataType, s string) arrow.Array {
				a, _, err := array.FromJSON(mem, dt, strings.NewReader(s))
				require.NoError(t, err)
				return a
			}
			x := fromJSON(c.dt, c.vals)
			defer x.Release()
			b := fromJSON(arrow.PrimitiveTypes.Int64, c.begins)
			defer b.Release()
			e := fromJSON(arrow.PrimitiveTypes.Int64, c.ends)
			defer e.Release()
			out, err := ArraySlice(mem, []arrow.Array{x, b, e})
			require.NoError(t, err)
			defer out.Release()
			require.True(t, arrow.TypeEqual(c.dt, out.DataType()), out.DataType().String())
			require.Equal(t, c.want, out.String())
		})
	}
}
