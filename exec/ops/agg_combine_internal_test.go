package ops

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestCombineEqualsOnePass: for every mergeable aggregate, folding the rows into two
// partial states and combining them (with the groups swapped, as a merge maps them) gives
// what one state over all rows gives; approx_count_distinct crosses into its sketch form.
func TestCombineEqualsOnePass(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 6000
	ib, fb, sb, bb := array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewStringBuilder(mem), array.NewBooleanBuilder(mem)
	for i := range n {
		if i%10 == 3 {
			ib.AppendNull()
			fb.AppendNull()
			sb.AppendNull()
			bb.AppendNull()
			continue
		}
		ib.Append(int64(i*7919%5000) - 2500)
		fb.Append(float64(i%97) * 1.5)
		sb.Append(fmt.Sprintf("s%d", i%3001))
		bb.Append(i%7 != 0)
	}
	args := map[arrow.Type]arrow.Array{arrow.INT64: ib.NewArray(), arrow.FLOAT64: fb.NewArray(), arrow.STRING: sb.NewArray(), arrow.BOOL: bb.NewArray()}
	for _, b := range []interface{ Release() }{ib, fb, sb, bb} {
		b.Release()
	}
	defer func() {
		for _, a := range args {
			a.Release()
		}
	}()
	groups := make([]int32, n) // two groups: 0 and 1
	for i := range groups {
		groups[i] = int32(i % 2)
	}
	cases := []struct {
		fn  string
		arg arrow.Type
		out arrow.DataType
	}{
		{"count", arrow.INT64, arrow.PrimitiveTypes.Int64}, {"count_star", arrow.INT64, arrow.PrimitiveTypes.Int64},
		{"sum", arrow.INT64, arrow.PrimitiveTypes.Int64}, {"sum", arrow.FLOAT64, arrow.PrimitiveTypes.Float64},
		{"avg", arrow.INT64, arrow.PrimitiveTypes.Float64}, {"min", arrow.STRING, arrow.BinaryTypes.String},
		{"max", arrow.INT64, arrow.PrimitiveTypes.Int64}, {"min", arrow.FLOAT64, arrow.PrimitiveTypes.Float64},
		{"stddev_samp", arrow.FLOAT64, arrow.PrimitiveTypes.Float64}, {"var_pop", arrow.INT64, arrow.PrimitiveTypes.Float64},
		{"bool_and", arrow.BOOL, arrow.FixedWidthTypes.Boolean}, {"bool_or", arrow.BOOL, arrow.FixedWidthTypes.Boolean},
		{"approx_count_distinct", arrow.STRING, arrow.PrimitiveTypes.Int64},
		{"approx_count_distinct", arrow.INT64, arrow.PrimitiveTypes.Int64},
	}
	for _, c := range cases {
		t.Run(c.fn+"/"+c.arg.String(), func(t *testing.T) {
			arg := args[c.arg]
			call := plan.AggCall{Func: c.fn, Args: []plan.Expr{&plan.ColumnRef{DataType: arg.DataType()}}, DataType: c.out}
			if c.fn == "count_star" {
				call.Args = nil
			}
			require.True(t, CanCombine([]plan.AggCall{call}))
			mk := func() accumulator {
				acc, err := newAccumulator(call, arg.DataType(), mem)
				require.NoError(t, err)
				acc.resize(2)
				return acc
			}
			one, lo, hi, merged := mk(), mk(), mk(), mk()
			require.NoError(t, one.update(groups, arg, nil))
			half := n / 3
			loArg, hiArg := array.NewSlice(arg, 0, int64(half)), array.NewSlice(arg, int64(half), n)
			defer loArg.Release()
			defer hiArg.Release()
			require.NoError(t, lo.update(groups[:half], loArg, nil))
			require.NoError(t, hi.update(groups[half:], hiArg, nil))
			// The merge target sees the partials with groups swapped (its group 0 is their 1).
			require.NoError(t, merged.(combiner).combine(hi, []int32{1, 0}))
			require.NoError(t, merged.(combiner).combine(lo, []int32{1, 0}))
			want, err := one.finish(mem, c.out)
			require.NoError(t, err)
			defer want.Release()
			got, err := merged.finish(mem, c.out)
			require.NoError(t, err)
			defer got.Release()
			require.Equal(t, 2, got.Len())
			for g := range 2 {
				w, gv := want.GetOneForMarshal(g), got.GetOneForMarshal(1-g)
				if f, ok := w.(float64); ok {
					require.InDelta(t, f, gv.(float64), 1e-9*max(1, f), "group %d", g)
					continue
				}
				require.Equal(t, w, gv, "group %d", g)
			}
			if c.fn == "approx_count_distinct" {
				require.NotNil(t, merged.(*hllAcc).dense[0], "past the exact range the sketches merge")
			}
		})
	}
}
