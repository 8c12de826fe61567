package ops_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

const benchRows = 1 << 18

func benchInput(b *testing.B, mem memory.Allocator) exectest.Rows {
	b.Helper()
	rows := make(exectest.Rows, benchRows)
	for i := range rows {
		rows[i] = []any{i % 1000, fmt.Sprintf("g%d", i%37), float64(i)}
	}
	return rows
}

func runBench(b *testing.B, mk func(in exec.Operator, env exec.Env) exec.Operator) {
	mem := memory.NewGoAllocator()
	sch := schema(field("k", i64), field("s", str), field("f", f64))
	rows := benchInput(b, mem)
	b.ReportAllocs()
	b.SetBytes(benchRows * 24)
	for b.Loop() {
		b.StopTimer()
		bs, err := exectest.MakeBatches(mem, sch, rows, exec.DefaultBatchSize, exectest.Plain)
		require.NoError(b, err)
		env := exec.Env{Mem: mem}.WithDefaults()
		op := mk(exectest.NewSource(sch, bs), env)
		b.StartTimer()
		out, err := exec.Collect(context.Background(), op)
		require.NoError(b, err)
		for _, o := range out {
			o.Release()
		}
	}
}

func BenchmarkAggregate(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		aggs := []plan.AggCall{agg("count", i64, false), agg("sum", f64, false, col(2, f64)), agg("max", i64, false, col(0, i64))}
		return ops.NewAggregate(in, []plan.Expr{col(1, str)}, aggs, schema(field("s", str), field("c", i64), field("sum", f64), field("max", i64)), env)
	})
}

func BenchmarkFilter(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		return ops.NewFilter(in, call("and", bln, call("gt", bln, col(0, i64), lit(int64(500))), call("like", bln, col(1, str), lit("g1%"))), env)
	})
}

func BenchmarkSort(b *testing.B) {
	runBench(b, func(in exec.Operator, env exec.Env) exec.Operator {
		return ops.NewSort(in, []plan.SortKey{{Expr: col(1, str)}, {Expr: col(0, i64), Descending: true}}, env)
	})
}
