package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// TestAggregateSharedArgs: aggregates whose arguments share arithmetic (computed once per
// batch) give what the same aggregates give over the arguments projected first, at every
// batch size, with NULLs, grouped and with a fused filter.
func TestAggregateSharedArgs(t *testing.T) {
	x, f := col(1, i64), col(2, f64)
	twice := call("multiply", i64, x, lit(int64(2)))
	plus := call("add", i64, twice, lit(int64(1)))
	scaled := call("multiply", f64, f, lit(0.5))
	args := []plan.Expr{twice, plus, call("add", i64, call("multiply", i64, x, lit(int64(2))), lit(int64(1))), scaled, scaled}
	mkAggs := func(args []plan.Expr) []plan.AggCall {
		return []plan.AggCall{agg("sum", i64, false, args[0]), agg("sum", i64, false, args[1]), agg("max", i64, false, args[2]),
			agg("avg", f64, false, args[3]), agg("count", i64, false, args[4])}
	}
	keys := []plan.Expr{col(0, str)}
	out := aggOutSchema(keys, mkAggs(args))
	rows := fusedRows()
	// The baseline projects the arguments first: its aggregates read plain columns.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	batches, err := exectest.MakeBatches(mem, aggSchema, rows, 0, exectest.Plain)
	require.NoError(t, err)
	env := exec.Env{Mem: mem}
	projected := append([]plan.Expr{col(0, str)}, args...)
	refs := make([]plan.Expr, len(args))
	fields := []arrow.Field{field("g", str)}
	for i, a := range args {
		refs[i] = col(i+1, a.Type())
		fields = append(fields, field("a", a.Type()))
	}
	base := ops.NewAggregate(ops.NewProject(exectest.NewSource(aggSchema, batches), projected, schema(fields...), env),
		keys, mkAggs(refs), out, env)
	got, err := exec.Collect(context.Background(), base)
	require.NoError(t, err)
	want := exectest.ToRows(got)
	for _, b := range got {
		b.Release()
	}
	mem.AssertSize(t, 0)
	require.Len(t, want, 5)
	c := aggCase("shared", keys, mkAggs(args), rows, want)
	exectest.Run(t, c)
	cond := call("gte", bln, x, lit(int64(0)))
	c.Name, c.Expected = "shared-fused", unfused(t, cond, keys, mkAggs(args), out, rows)
	c.Make = func(in exec.Operator, env exec.Env) (exec.Operator, error) {
		a := ops.NewAggregate(in, keys, mkAggs(args), out, env)
		a.SetInputFilter(cond)
		return a, nil
	}
	exectest.Run(t, c)
}
