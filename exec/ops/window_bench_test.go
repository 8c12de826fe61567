package ops_test

import (
	"testing"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// BenchmarkWindow runs the common window shapes over benchRows rows in 37 partitions:
// rank, a running sum, a sliding min and a RANGE count (the fast paths, no per-frame fold).
func BenchmarkWindow(b *testing.B) {
	part, order := []plan.Expr{col(1, str)}, []plan.SortKey{asc(col(0, i64)), asc(col(2, f64))}
	funcs := []plan.WindowFunc{
		over(winFn("rank", i64), part, order, nil),
		over(winFn("sum", f64, col(2, f64)), part, order, frame(plan.FrameRows, unbPre, curRow)),
		over(winFn("min", i64, col(0, i64)), part, order, frame(plan.FrameRows, pre(int64(100)), fol(int64(100)))),
		over(winFn("count", i64), part, []plan.SortKey{asc(col(0, i64))}, frame(plan.FrameRange, pre(int64(10)), fol(int64(10)))),
	}
	sch := schema(field("k", i64), field("s", str), field("f", f64))
	out := plan.NewWindow(plan.NewValues(sch, nil), funcs).Schema()
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		return ops.NewWindow(in, funcs, out, env)
	})
}
