package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// Casts between list types cast the values and keep offsets, validity and slicing, with
// no leak (arrow-go's list cast leaks), nested lists and decimals included.
func TestCastListElems(t *testing.T) {
	cases := []struct {
		name     string
		src, dst arrow.DataType
		in       string
		slice    int64 // rows dropped from the front
		try      bool
		want     string
		err      string
	}{
		{name: "int to bigint", src: arrow.ListOf(arrow.PrimitiveTypes.Int32), dst: arrow.ListOf(arrow.PrimitiveTypes.Int64), in: `[[1, 2], null, [], [null, 4]]`, want: `[[1 2] (null) [] [(null) 4]]`},
		{name: "sliced", src: arrow.ListOf(arrow.PrimitiveTypes.Int32), dst: arrow.ListOf(arrow.PrimitiveTypes.Int64), in: `[[9], [1, 2], null]`, slice: 1, want: `[[1 2] (null)]`},
		{name: "int to decimal", src: arrow.ListOf(arrow.PrimitiveTypes.Int32), dst: arrow.ListOf(&arrow.Decimal128Type{Precision: 11, Scale: 1}), in: `[[1, -3]]`, want: `[[1 -3]]`},
		{name: "nested", src: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), dst: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)), in: `[[["1", null], null]]`, want: `[[[1 (null)] (null)]]`},
		{name: "bad string", src: arrow.ListOf(arrow.BinaryTypes.String), dst: arrow.ListOf(arrow.PrimitiveTypes.Int32), in: `[["1", "x"]]`, err: "Could not convert"},
		{name: "try bad string", src: arrow.ListOf(arrow.BinaryTypes.String), dst: arrow.ListOf(arrow.PrimitiveTypes.Int32), in: `[["1", "x"]]`, try: true, want: `[[1 (null)]]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			full, _, err := array.FromJSON(mem, c.src, strings.NewReader(c.in))
			require.NoError(t, err)
			defer full.Release()
			in := array.NewSlice(full, c.slice, int64(full.Len()))
			defer in.Release()
			got, err := (&castEval{dt: c.dst, try: c.try, mem: mem}).cast(context.Background(), in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			defer got.Release()
			require.True(t, arrow.TypeEqual(c.dst, got.DataType()), "got %s", got.DataType())
			require.Equal(t, c.want, got.String())
		})
	}
}
