package ops_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// TestParallelAggregateMerge: workers with disjoint, overlapping and NULL keys (the first
// one merged is adopted whole, the others looked up), an idle worker, DISTINCT and lanes,
// merge into what one serial aggregate over all rows gives.
func TestParallelAggregateMerge(t *testing.T) {
	rows := laneRows(200)
	for i, r := range rows { // keys: worker-local ones, shared ones and NULL
		switch {
		case i%7 == 0:
			r[0] = nil
		case i%3 == 0:
			r[0] = "shared"
		default:
			r[0] = fmt.Sprintf("w%d-%d", i/50, i%5)
		}
	}
	keys := []plan.Expr{col(0, str)}
	p, d := col(1, dec(15, 2)), col(2, dec(15, 2))
	aggs := []plan.AggCall{agg("count", i64, false), agg("sum", dec(38, 2), false, p),
		agg("sum", dec(38, 4), false, call("multiply", dec(31, 4), p, d)), agg("count", i64, true, d),
		agg("min", dec(15, 2), false, p)}
	out := aggOutSchema(keys, aggs)
	serial := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, keys, aggs, out, env) }
	want := generalAggregate(t, laneSchema, serial, lanesPath, rows)
	for _, split := range [][]int{{50, 100, 150}, {0, 120, 120}, {200, 200, 200}} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			inputs := workerInputs(t, mem, laneSchema, rows, split, 16)
			op := ops.NewParallelAggregate(inputs, keys, aggs, out, exec.Env{Mem: mem})
			got, err := exec.Collect(context.Background(), op)
			require.NoError(t, err)
			defer func() {
				for _, b := range got {
					b.Release()
				}
			}()
			exectest.RequireRows(t, want, exectest.ToRows(got), false)
		})
	}
}

// workerInputs returns one source per part of rows (of schema sch) cut at split, in hostile
// batches of size rows.
func workerInputs(t *testing.T, mem memory.Allocator, sch *arrow.Schema, rows exectest.Rows, split []int, size int) []exec.Operator {
	var inputs []exec.Operator
	bounds := append(append([]int{0}, split...), len(rows))
	for w := range len(bounds) - 1 {
		batches, err := exectest.MakeBatches(mem, sch, rows[bounds[w]:bounds[w+1]], size, exectest.Hostile)
		require.NoError(t, err)
		inputs = append(inputs, exectest.NewSource(sch, batches))
	}
	return inputs
}
