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

var q18Schema = schema(field("l_orderkey", i64), field("l_quantity", i64), field("o_orderdate", dt32),
	field("o_shippriority", arrow.PrimitiveTypes.Int32))

// q18Batches builds 1M lineitem-like rows in batches of q1Rows: order keys ascending with
// one to seven lines each (as TPC-H lays them out) when sorted, else in random order, with
// an order date and priority that depend on the order key only (as after q03's joins).
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
		bd, bp := array.NewDate32Builder(mem), array.NewInt32Builder(mem)
		bk.AppendValues(keys[lo:lo+q1Rows], nil)
		for _, k := range keys[lo : lo+q1Rows] {
			bq.Append(1 + r.Int64N(50))
			bd.Append(arrow.Date32(8000 + k%2400))
			bp.Append(int32(k % 3))
		}
		cols := []arrow.Array{bk.NewArray(), bq.NewArray(), bd.NewArray(), bp.NewArray()}
		out = append(out, array.NewRecordBatch(q18Schema, cols, q1Rows))
		for i, bld := range []array.Builder{bk, bq, bd, bp} {
			bld.Release()
			cols[i].Release()
		}
	}
	return out, orders
}

// BenchmarkAggregateIntKeys measures TPC-H Q18's inner aggregate (sum(l_quantity) GROUP BY
// l_orderkey, about 260K groups over 1M rows) on the integer-key table and on the general
// map, and the same grouped also by o_orderdate (keys=2) and o_shippriority (keys=3, q03's
// keys): `go test -run '^$' -bench AggregateIntKeys ./exec/ops/`.
func BenchmarkAggregateIntKeys(b *testing.B) {
	mem := memory.NewGoAllocator()
	keySets := [][]plan.Expr{{col(0, i64)}, {col(0, i64), col(2, dt32)},
		{col(0, i64), col(2, dt32), col(3, arrow.PrimitiveTypes.Int32)}}
	aggs := []plan.AggCall{agg("sum", dec(38, 0), false, col(1, i64))}
	for _, sorted := range []bool{true, false} {
		batches, orders := q18Batches(mem, sorted)
		for _, bc := range benchIntKeyCases(keySets) {
			keys, ints := bc.keys, bc.ints
			b.Run(fmt.Sprintf("sorted=%t/keys=%d/ints=%t", sorted, len(keys), ints), func(b *testing.B) {
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

// intKeyBenchCase is one key set of BenchmarkAggregateIntKeys, on the table or the map.
type intKeyBenchCase struct {
	keys []plan.Expr
	ints bool
}

// benchIntKeyCases returns each key set on the integer-key table and on the general map.
func benchIntKeyCases(keySets [][]plan.Expr) []intKeyBenchCase {
	var out []intKeyBenchCase
	for _, keys := range keySets {
		out = append(out, intKeyBenchCase{keys, true}, intKeyBenchCase{keys, false})
	}
	return out
}
