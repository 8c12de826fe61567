package ops_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// BenchmarkHashJoin probes 2^18 rows against a 1000-row build side (one match per row).
func BenchmarkHashJoin(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		bs := schema(field("k", i64), field("name", str))
		rows := make(exectest.Rows, 1000)
		for i := range rows {
			rows[i] = []any{int64(i), "n"}
		}
		batches, err := exectest.MakeBatches(env.Mem, bs, rows, 0, exectest.Plain)
		require.NoError(b, err)
		jt := joinTest{name: "bench", typ: plan.InnerJoin, lKeys: []plan.Expr{col(0, i64)}, rKey: []plan.Expr{col(0, i64)}}
		spec := joinSpec(jt, schema(field("k", i64), field("s", str), field("f", f64)), bs)
		return ops.NewHashJoin(in, exectest.NewSource(bs, batches), spec, env)
	})
}
