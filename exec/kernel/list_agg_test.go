package kernel

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestListAggregates: list_min, list_max, list_sum and list_avg skip NULL elements and
// give NULL for NULL, empty and all-NULL lists.
func TestListAggregates(t *testing.T) {
	rows := `[[3, 1, null, 2], null, [], [null], [-5]]`
	cases := []struct {
		name string
		elem arrow.DataType
		in   string
		run  func(memory.Allocator, arrow.Array) (arrow.Array, error)
		want string
		err  string
	}{
		{name: "min", elem: arrow.PrimitiveTypes.Int32, in: rows, run: minMax(false), want: `[1 (null) (null) (null) -5]`},
		{name: "max", elem: arrow.PrimitiveTypes.Int32, in: rows, run: minMax(true), want: `[3 (null) (null) (null) -5]`},
		{name: "max strings", elem: arrow.BinaryTypes.String, in: `[["b", null, "c", "a"], []]`, run: minMax(true), want: `["c" (null)]`},
		{name: "min floats NaN", elem: arrow.PrimitiveTypes.Float64, in: `[[1.5, "NaN", -2]]`, run: minMax(false), want: `[-2]`},
		{name: "max floats NaN", elem: arrow.PrimitiveTypes.Float64, in: `[[1.5, "NaN", -2]]`, run: minMax(true), want: `[NaN]`},
		{name: "min null elems", elem: arrow.Null, in: `[[null], null, []]`, run: minMax(false), want: `[(null) (null) (null)]`},
		{name: "sum", elem: arrow.PrimitiveTypes.Int64, in: rows, run: oneList(ListSum), want: `[6 (null) (null) (null) -5]`},
		{name: "sum floats", elem: arrow.PrimitiveTypes.Float64, in: `[[1.5, null, 2.25], [null]]`, run: oneList(ListSum), want: `[3.75 (null)]`},
		{name: "sum decimals", elem: &arrow.Decimal128Type{Precision: 38, Scale: 1}, in: `[["1.5", "2.6"], []]`, run: oneList(ListSum), want: `[4.1 (null)]`},
		{name: "sum overflow", elem: arrow.PrimitiveTypes.Int64, in: `[[9223372036854775807, 1]]`, run: oneList(ListSum), err: "Overflow in list_sum of INT64"},
		{name: "sum negative overflow", elem: arrow.PrimitiveTypes.Int64, in: `[[-9223372036854775808, -1]]`, run: oneList(ListSum), err: "Overflow in list_sum of INT64"},
		{name: "sum int8", elem: arrow.PrimitiveTypes.Int8, in: `[[127, 127, null], [-1]]`, run: oneList(ListSum), want: `[254 -1]`},
		{name: "sum uint64 overflow", elem: arrow.PrimitiveTypes.Uint64, in: `[[18446744073709551615]]`, run: oneList(ListSum), err: "Overflow in list_sum of INT64"},
		{name: "sum float32", elem: arrow.PrimitiveTypes.Float32, in: `[[1.5, 0.25]]`, run: oneList(ListSum), want: `[1.75]`},
		{name: "sum decimal(4,1)", elem: &arrow.Decimal128Type{Precision: 4, Scale: 1}, in: `[["999.9", "999.9"]]`, run: oneList(ListSum), want: `[1999.8]`},
		{name: "sum null elems", elem: arrow.Null, in: `[[null], null]`, run: oneList(ListSum), want: `[(null) (null)]`},
		{name: "avg ints", elem: arrow.PrimitiveTypes.Int32, in: `[[1, 2], [null, 5]]`, run: oneList(ListAvg), want: `[1.5 5]`},
		{name: "avg decimals", elem: &arrow.Decimal128Type{Precision: 4, Scale: 1}, in: `[["1.5", "2.0"]]`, run: oneList(ListAvg), want: `[1.75]`},
		{name: "avg", elem: arrow.PrimitiveTypes.Float64, in: `[[3, 1, null, 2], null, [], [null], [1, 2]]`, run: oneList(ListAvg), want: `[2 (null) (null) (null) 1.5]`},
		{name: "sum of strings", elem: arrow.BinaryTypes.String, in: `[["a"]]`, run: oneList(ListSum), err: "list_sum over"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := fromJSON(t, mem, arrow.ListOf(c.elem), c.in)
			defer in.Release()
			got, err := c.run(mem, in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			defer got.Release()
			if c.name == "sum decimal(4,1)" {
				require.Equal(t, "decimal(38, 1)", got.DataType().String())
			}
			require.Equal(t, c.want, got.String())
		})
	}
}

func minMax(max bool) func(memory.Allocator, arrow.Array) (arrow.Array, error) {
	return func(mem memory.Allocator, in arrow.Array) (arrow.Array, error) {
		return ListMinMax(context.Background(), mem, in, max)
	}
}

func oneList(fn ScalarFunc) func(memory.Allocator, arrow.Array) (arrow.Array, error) {
	return func(mem memory.Allocator, in arrow.Array) (arrow.Array, error) {
		return fn(mem, []arrow.Array{in})
	}
}
