package ops_test

import (
	"testing"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var topNKeys = []plan.SortKey{{Expr: col(2, f64), Descending: true}, {Expr: col(1, str)}}

// BenchmarkTopN is ORDER BY f DESC, s LIMIT 10 as a TopN; BenchmarkSortLimit is the same as
// Sort followed by Limit.
func BenchmarkTopN(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		return ops.NewTopN(in, topNKeys, 0, 10, env)
	})
}

func BenchmarkSortLimit(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		return ops.NewLimit(ops.NewSort(in, topNKeys, env), 0, 10)
	})
}
