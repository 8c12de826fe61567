package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/kernel"
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

// BenchmarkHashJoinLargeBuild probes 2^21 random keys against a build side of 2^20 distinct
// int64 keys (a primary key larger than the caches, TPC-H's lineitem against orders);
// about half the probes match. The keys are spaced 2 apart (a dense index,
// hash_join_dense.go) or 5 apart (the hashed flat index). The build is part of each
// iteration.
func BenchmarkHashJoinLargeBuild(b *testing.B) {
	for _, spacing := range []int64{2, 5} {
		b.Run(fmt.Sprintf("spacing=%d", spacing), func(b *testing.B) { benchLargeBuild(b, spacing) })
	}
}

func benchLargeBuild(b *testing.B, spacing int64) {
	mem := memory.NewGoAllocator()
	s := schema(field("k", i64))
	const buildRows, probeRows = 1 << 20, 1 << 21
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(n int, key func(i int) int64) []arrow.RecordBatch {
		var out []arrow.RecordBatch
		for off := 0; off < n; off += exec.DefaultBatchSize {
			f := kernel.NewFixed[int64](mem, arrow.PrimitiveTypes.Int64, min(exec.DefaultBatchSize, n-off))
			for i := range f.Values {
				f.Values[i] = key(off + i)
			}
			col := f.Finish()
			out = append(out, array.NewRecordBatch(s, []arrow.Array{col}, int64(col.Len())))
			col.Release()
		}
		return out
	}
	perm := rng.Perm(buildRows)
	build := mk(buildRows, func(i int) int64 { return int64(perm[i]) * spacing })
	probe := mk(probeRows, func(int) int64 { return rng.Int64N(spacing * buildRows) })
	keys := []plan.Expr{col(0, i64)}
	spec := joinSpec(joinTest{typ: plan.InnerJoin, lKeys: keys, rKey: keys}, s, s)
	for b.Loop() {
		env := exec.Env{Mem: mem, Parallelism: 1}.WithDefaults()
		for _, x := range append(append([]arrow.RecordBatch{}, build...), probe...) {
			x.Retain()
		}
		h := ops.NewHashJoin(exectest.NewSource(s, probe), exectest.NewSource(s, build), spec, env)
		out, err := exec.Collect(context.Background(), h)
		require.NoError(b, err)
		for _, o := range out {
			o.Release()
		}
	}
}
