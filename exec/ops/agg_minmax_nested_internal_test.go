package ops

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestNestedMinMax: min/max of lists and structs in DuckDB's order (NULL elements and
// fields above values, a shorter list first), over several batches and groups, with the
// parallel merge giving the same result.
func TestNestedMinMax(t *testing.T) {
	i32 := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	cases := []struct {
		name     string
		dt       arrow.DataType
		batches  []string // JSON values, rows alternate groups 0 and 1
		min, max string   // results of groups 0 and 1 (arrow's String form)
	}{
		{"lists", i32, []string{`[[1, 2], [3], null, [1]]`, `[[1, null], [3, 0], [0, 9], null]`},
			`[[0 9] [1]]`, `[[1 (null)] [3 0]]`},
		{"structs", st, []string{`[{"a": 1, "b": "z"}, null, {"a": 1, "b": "y"}]`, `[{"a": null, "b": "a"}, {"a": 2, "b": null}]`},
			`{[1 2] ["y" (null)]}`, `{[(null) 2] ["a" (null)]}`},
		{"all null group", i32, []string{`[null, [5]]`}, `[(null) [5]]`, `[(null) [5]]`},
	}
	for _, c := range cases {
		for _, isMax := range []bool{false, true} {
			t.Run(c.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				call := plan.AggCall{Func: "min", Args: []plan.Expr{&plan.ColumnRef{DataType: c.dt}}, DataType: c.dt}
				want := c.min
				if isMax {
					call.Func, want = "max", c.max
				}
				mk := func() accumulator {
					acc, err := newAccumulator(call, c.dt, mem)
					require.NoError(t, err)
					acc.resize(2)
					return acc
				}
				whole, merged := mk(), mk()
				var parts []accumulator
				for _, js := range c.batches {
					arg, _, err := array.FromJSON(mem, c.dt, strings.NewReader(js))
					require.NoError(t, err)
					groups := make([]int32, arg.Len())
					for i := range groups {
						groups[i] = int32(i % 2)
					}
					part := mk()
					require.NoError(t, whole.update(groups, arg, nil))
					require.NoError(t, part.update(groups, arg, nil))
					parts = append(parts, part)
					arg.Release()
				}
				for _, p := range parts {
					require.NoError(t, merged.(combiner).combine(p, []int32{0, 1}))
					p.(releaser).release()
				}
				for _, acc := range []accumulator{whole, merged} {
					got, err := acc.finish(mem, c.dt)
					require.NoError(t, err)
					require.Equal(t, want, got.String())
					got.Release()
					acc.(releaser).release()
				}
			})
		}
	}
}
