package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

var (
	intKeyPath   = fastPath{ops.DisableIntKeys, ops.IntKeyGroups}
	intKeySchema = schema(field("a", i64), field("b", dt32), field("c", arrow.PrimitiveTypes.Int8),
		field("u", arrow.PrimitiveTypes.Uint64), field("x", i64), field("s", str), field("p", i32))
)

// intKeyRows draws n rows whose keys come from about distinct values per key column, with
// NULLs in every key column (in every combination with the others' NULLs), negative and
// extreme values, and runs of one key.
func intKeyRows(n, distinct int, seed uint64) exectest.Rows {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make(exectest.Rows, 0, n)
	for len(rows) < n {
		k := r.IntN(distinct)
		var a, b, c, u, x any = int64(k)*1_000_003 - 5_000_000, arrow.Date32(k % 37), int8(k % 5), uint64(k) * 0x9E3779B97F4A7C15, int64(r.IntN(100))
		switch {
		case k%29 == 0:
			a = nil
		case k == 1:
			a = int64(-1 << 63)
		case k%31 == 0:
			b = nil
		}
		if k%11 == 0 {
			c, u = nil, nil
		}
		if r.IntN(9) == 0 {
			x = nil
		}
		var p any = int32(k%7) - 3
		if k%13 == 0 {
			p = nil
		}
		row := []any{a, b, c, u, x, fmt.Sprintf("v%d", r.IntN(5)), p}
		for range 1 + r.IntN(3)*r.IntN(2) { // sometimes a run of the same key
			rows = append(rows, row)
		}
	}
	return rows[:n]
}

// intKeyAggs returns the aggregates the planner sends, DISTINCT and FILTER included.
func intKeyAggs(serialOnly bool) []plan.AggCall {
	x, s := col(4, i64), col(5, str)
	filtered := agg("sum", dec(38, 0), false, x)
	filtered.Filter = call("gt", bln, x, lit(int64(40)))
	aggs := []plan.AggCall{agg("count", i64, false), agg("count", i64, false, x), agg("sum", dec(38, 0), false, x),
		agg("avg", f64, false, x), agg("min", i64, false, x), agg("max", str, false, s),
		agg("count", i64, true, x), agg("sum", dec(38, 0), true, x), filtered}
	if serialOnly {
		aggs = append(aggs, agg("first", i64, false, x), agg("list", arrow.ListOf(i64), false, x),
			agg("string_agg", str, true, s))
	}
	return aggs
}

var intKeySets = map[string][]plan.Expr{
	"int64":        {col(0, i64)},
	"int64,date32": {col(0, i64), col(1, dt32)},
	"int8,uint64":  {col(2, arrow.PrimitiveTypes.Int8), col(3, arrow.PrimitiveTypes.Uint64)},
	"uint64":       {col(3, arrow.PrimitiveTypes.Uint64)},
	// three and four columns: the wide path (TPC-H q03 groups by int64, date32, int32)
	"int64,date32,int32":       {col(0, i64), col(1, dt32), col(6, i32)},
	"int8,uint64,int64,int32":  {col(2, arrow.PrimitiveTypes.Int8), col(3, arrow.PrimitiveTypes.Uint64), col(0, i64), col(6, i32)},
	"int32,int8,date32,uint64": {col(6, i32), col(2, arrow.PrimitiveTypes.Int8), col(1, dt32), col(3, arrow.PrimitiveTypes.Uint64)},
}

// TestAggregateIntKeys: the integer-key table gives the groups, in the order, the general
// path gives, for one and two key columns with NULLs, few groups and many (the table grows
// several times), at batch sizes 1, 3 and the default.
func TestAggregateIntKeys(t *testing.T) {
	defer func(sizes []int) { exectest.BatchSizes = sizes }(exectest.BatchSizes)
	aggs := intKeyAggs(true)
	for name, keys := range intKeySets {
		for _, distinct := range []int{3, 1000} {
			n := 200
			exectest.BatchSizes = []int{1, 3, 0}
			if distinct > 100 { // 600+ groups: the table grows from 64 slots to 2048
				n, exectest.BatchSizes = 2000, []int{3, 0}
			}
			rows := intKeyRows(n, distinct, uint64(distinct))
			out := aggOutSchema(keys, aggs)
			make := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, keys, aggs, out, env) }
			want := generalAggregate(t, intKeySchema, make, intKeyPath, rows)
			require.Greater(t, len(want), min(distinct, 3)*9/10, "groups")
			made := runAggregates(t, fmt.Sprintf("%s/distinct=%d", name, distinct), rows, want, make)
			for _, a := range made {
				require.Equal(t, len(want), ops.IntKeyGroups(a), "the integer-key table was not used")
			}
			if distinct > 100 {
				require.Greater(t, len(want), 600, "groups")
			}
		}
	}
}

// TestParallelAggregateIntKeys: workers on the integer-key table merge (adopting the first
// worker's table, looking up the others, and falling back to the general map when one worker
// keeps it) into what the serial general path gives, in the same group order.
func TestParallelAggregateIntKeys(t *testing.T) {
	aggs := intKeyAggs(false)
	rows := intKeyRows(3000, 1200, 11)
	for name, keys := range intKeySets {
		out := aggOutSchema(keys, aggs)
		serial := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, keys, aggs, out, env) }
		want := generalAggregate(t, intKeySchema, serial, intKeyPath, rows)
		for _, mapWorker := range []int{-1, 0, 2} {
			for _, split := range [][]int{{700, 1500, 2200}, {0, 2500, 2500}} {
				t.Run(fmt.Sprint(name, "/map=", mapWorker, "/", split), func(t *testing.T) {
					got, finalInts := runParallel(t, rows, split, mapWorker, keys, aggs, out)
					exectest.RequireRows(t, want, got, true)
					if mapWorker < 0 {
						require.Equal(t, len(want), finalInts)
					} else {
						require.Zero(t, finalInts)
					}
				})
			}
		}
	}
}

// runParallel runs a parallel aggregate with one worker per part of rows cut at split;
// worker mapWorker (unless -1) keeps the general map. It returns the rows and how many groups
// the final integer-key table holds.
func runParallel(t *testing.T, rows exectest.Rows, split []int, mapWorker int, keys []plan.Expr,
	aggs []plan.AggCall, out *arrow.Schema) (exectest.Rows, int) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	inputs := workerInputs(t, mem, intKeySchema, rows, split, 100)
	op := ops.NewParallelAggregate(inputs, keys, aggs, out, exec.Env{Mem: mem})
	if mapWorker >= 0 {
		ops.DisableWorkerIntKeys(op, mapWorker)
	}
	defer func() { require.NoError(t, op.Close()) }()
	require.NoError(t, op.Open(context.Background()))
	var got exectest.Rows
	for {
		b, err := op.Next(context.Background())
		require.NoError(t, err)
		if b == nil {
			break
		}
		got = append(got, exectest.ToRows([]arrow.RecordBatch{b})...)
		b.Release()
	}
	return got, ops.FinalIntKeyGroups(op)
}

// TestAggregateIntKeysMemoryLimit: growing the table past the query's memory limit fails
// with an out-of-memory error instead of allocating.
func TestAggregateIntKeysMemoryLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows := make(exectest.Rows, 20000)
	for i := range rows {
		rows[i] = []any{int64(i), nil, nil, nil, int64(i), "s", nil}
	}
	batches, err := exectest.MakeBatches(mem, intKeySchema, rows, 0, exectest.Plain)
	require.NoError(t, err)
	keys := []plan.Expr{col(0, i64)}
	aggs := []plan.AggCall{agg("count", i64, false)}
	a := ops.NewAggregate(exectest.NewSource(intKeySchema, batches), keys, aggs, aggOutSchema(keys, aggs),
		exec.Env{Mem: mem, Pool: exec.NewMemoryPool(100 << 10)})
	_, err = exec.Collect(context.Background(), a)
	require.Error(t, err)
	kind, ok := dberr.KindOf(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, dberr.OutOfMemory, kind, "%v", err)
	require.Positive(t, ops.IntKeyGroups(a))
	require.Less(t, ops.IntKeyGroups(a), 20000)
}
