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
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var q18Schema = schema(field("l_orderkey", i64), field("l_quantity", i64))

// q18Batches builds 1M lineitem-like rows in batches of q1Rows: order keys ascending with
// one to seven lines each (as TPC-H lays them out) when sorted, else in random order.
func q18Batches(mem memory.Allocator, sorted bool) ([]arrow.RecordBatch, int) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([]int64, 0, n)
	orders := 0
	for k := int64(1); len(keys) < n; k += 4 {
		orders++
		for range 1 + r.IntN(7) {
			keys = append(keys, k)
		}
	}
	keys = keys[:n]
	if !sorted {
		r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}
	var out []arrow.RecordBatch
	for lo := 0; lo < n; lo += q1Rows {
		bk, bq := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		bk.AppendValues(keys[lo:lo+q1Rows], nil)
		for range q1Rows {
			bq.Append(1 + r.Int64N(50))
		}
		k, q := bk.NewArray(), bq.NewArray()
		bk.Release()
		bq.Release()
		out = append(out, array.NewRecordBatch(q18Schema, []arrow.Array{k, q}, q1Rows))
		k.Release()
		q.Release()
	}
	return out, orders
}

// BenchmarkAggregateIntKeys measures TPC-H Q18's inner aggregate (sum(l_quantity) GROUP BY
// l_orderkey, about 260K groups over 1M rows) on the integer-key table and on the general
// map: `go test -run '^$' -bench AggregateIntKeys ./exec/ops/`.
func BenchmarkAggregateIntKeys(b *testing.B) {
	mem := memory.NewGoAllocator()
	keys := []plan.Expr{col(0, i64)}
	aggs := []plan.AggCall{agg("sum", dec(38, 0), false, col(1, i64))}
	for _, sorted := range []bool{true, false} {
		batches, orders := q18Batches(mem, sorted)
		for _, ints := range []bool{true, false} {
			b.Run(fmt.Sprintf("sorted=%t/ints=%t", sorted, ints), func(b *testing.B) {
				b.SetBytes(int64(len(batches)) * int64(q1Rows))
				for b.Loop() {
					for _, x := range batches {
						x.Retain()
					}
					a := ops.NewAggregate(exectest.NewSource(q18Schema, batches), keys, aggs, aggOutSchema(keys, aggs), exec.Env{Mem: mem})
					if !ints {
						ops.DisableIntKeys(a)
					}
					out, err := exec.Collect(context.Background(), a)
					require.NoError(b, err)
					rows := 0
					for _, o := range out {
						rows += int(o.NumRows())
						o.Release()
					}
					require.Equal(b, orders, rows)
				}
			})
		}
		for _, x := range batches {
			x.Release()
		}
	}
}
