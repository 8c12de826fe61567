package build_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/planner/plan"
)

const aggBenchRows = 1 << 20

// benchTable is k (1000 groups), v (int64) and f (double), in 16 fragments.
func benchTable(b *testing.B, mem memory.Allocator) (*memcat.Catalog, catalog.Table) {
	b.Helper()
	sch := arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64}, {Name: "v", Type: i64}, {Name: "f", Type: f64}}, nil)
	cat := memcat.New(memcat.WithMorselRows(16 << 10))
	const frags = 16
	recs := make([]arrow.RecordBatch, 0, frags)
	for range frags {
		kb, vb, fb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem)
		for i := range aggBenchRows / frags {
			kb.Append(int64(i*7919) % 1000)
			vb.Append(int64(i))
			fb.Append(float64(i) * 0.5)
		}
		cols := []arrow.Array{kb.NewArray(), vb.NewArray(), fb.NewArray()}
		rec := array.NewRecordBatch(sch, cols, aggBenchRows/frags)
		for _, c := range cols {
			c.Release()
		}
		kb.Release()
		vb.Release()
		fb.Release()
		recs = append(recs, rec)
	}
	require.NoError(b, cat.AddTable("t", sch, recs...))
	for _, r := range recs {
		r.Release()
	}
	tbl, err := cat.LoadTable(context.Background(), "t", catalog.VersionRef{})
	require.NoError(b, err)
	return cat, tbl
}

// BenchmarkAggregateParallel measures the morsel-parallel hash aggregate against the serial
// one: `go test -run '^$' -bench AggregateParallel -cpu 2 ./exec/build/`.
func BenchmarkAggregateParallel(b *testing.B) {
	mem := memory.NewGoAllocator()
	cat, tbl := benchTable(b, mem)
	defer cat.Release()
	queries := map[string]func() plan.Node{
		"grouped": func() plan.Node {
			s := plan.NewScan(tbl, []int{0, 1, 2})
			f := &plan.Filter{Input: s, Cond: call("gt", bln, cref(2, f64), lit(10.0))}
			return plan.NewAggregate(f, []plan.Expr{cref(0, i64)}, []string{"k"}, []plan.AggCall{
				aggCall("count", i64, false), aggCall("sum", i64, false, cref(1, i64)),
				aggCall("avg", f64, false, cref(2, f64)), aggCall("max", i64, false, cref(1, i64)),
			})
		},
		"ungrouped": func() plan.Node {
			return plan.NewAggregate(plan.NewScan(tbl, []int{1, 2}), nil, nil, []plan.AggCall{
				aggCall("sum", i64, false, cref(0, i64)), aggCall("avg", f64, false, cref(1, f64)),
				aggCall("stddev_samp", f64, false, cref(1, f64)),
			})
		},
	}
	for _, name := range []string{"grouped", "ungrouped"} {
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/par=%d", name, par), func(b *testing.B) {
				b.SetBytes(aggBenchRows * 24)
				for b.Loop() {
					op, err := build.Build(queries[name](), flexec.Env{Mem: mem, Parallelism: par})
					require.NoError(b, err)
					out, err := flexec.Collect(context.Background(), op)
					require.NoError(b, err)
					for _, o := range out {
						o.Release()
					}
				}
			})
		}
	}
}
