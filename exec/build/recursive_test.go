package build_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// counting is WITH RECURSIVE r(n) AS (SELECT 1 UNION [ALL] SELECT next(n) FROM r WHERE cond)
// built directly as a plan; next and cond are over the working table's n (BIGINT).
func counting(all bool, next func(n plan.Expr) plan.Expr, cond func(n plan.Expr) plan.Expr) plan.Node {
	s := arrow.NewSchema([]arrow.Field{{Name: "n", Type: i64, Nullable: true}}, nil)
	anchor := plan.NewValues(s, [][]plan.Expr{{&plan.Literal{Value: scalar.NewInt64Scalar(1)}}})
	var step plan.Node = plan.NewWorkingTable(7, s)
	n := &plan.ColumnRef{Index: 0, Name: "n", DataType: i64, Null: true}
	if cond != nil {
		step = &plan.Filter{Input: step, Cond: cond(n)}
	}
	step = plan.NewProject(step, []plan.Expr{next(n)}, []string{"n"})
	return plan.NewRecursiveCTE(anchor, step, all, 7)
}

func i64Call(fn string, args ...plan.Expr) plan.Expr {
	dt := i64
	if fn == "lt" {
		dt = bln
	}
	return &plan.Call{Func: fn, Args: args, DataType: dt, Null: true}
}

func i64Lit(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }

func TestRecursiveCTE(t *testing.T) {
	plus1 := func(n plan.Expr) plan.Expr { return i64Call("add", n, i64Lit(1)) }
	tests := []struct {
		name string
		node plan.Node
		want []int64
		err  string
	}{
		{"union all counts to 5", counting(true, plus1, func(n plan.Expr) plan.Expr { return i64Call("lt", n, i64Lit(5)) }), []int64{1, 2, 3, 4, 5}, ""},
		{"union stops on a cycle", counting(false, func(n plan.Expr) plan.Expr {
			return i64Call("add", i64Call("modulus", n, i64Lit(3)), i64Lit(1))
		}, nil), []int64{1, 2, 3}, ""},
		{"no fixpoint hits the cap", counting(true, plus1, nil), nil, "did not reach its fixpoint after 10000 iterations"},
	}
	for _, tc := range tests {
		for _, bs := range []int{1, 1024} {
			if tc.err != "" && bs == 1 {
				continue // 10000 rounds once is enough
			}
			t.Run(tc.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				op, err := build.Build(tc.node, flexec.Env{Mem: mem, BatchSize: bs})
				require.NoError(t, err)
				batches, err := flexec.Collect(context.Background(), op)
				defer func() {
					for _, b := range batches {
						b.Release()
					}
				}()
				if tc.err != "" {
					require.ErrorContains(t, err, tc.err)
					k, ok := dberr.KindOf(err)
					require.True(t, ok && k == dberr.InvalidInput, "%v", err)
					return
				}
				require.NoError(t, err)
				var got []int64
				for _, b := range batches {
					got = append(got, b.Column(0).(*array.Int64).Int64Values()...)
				}
				require.Equal(t, tc.want, got)
			})
		}
	}
	require.Equal(t, 10000, ops.MaxRecursion)
}
