package ops_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// q1Schema is the part of TPC-H's lineitem Q1 reads.
var q1Schema = schema(field("l_quantity", dec(15, 2)), field("l_extendedprice", dec(15, 2)),
	field("l_discount", dec(15, 2)), field("l_tax", dec(15, 2)), field("l_returnflag", str),
	field("l_linestatus", str), field("l_shipdate", dt32))

// q1Batches builds n batches of 16K lineitem-like rows.
func q1Batches(b *testing.B, mem memory.Allocator, n int) []arrow.RecordBatch {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]arrow.RecordBatch, n)
	for k := range out {
		bq, be, bd, bt := array.NewDecimal128Builder(mem, dec(15, 2)), array.NewDecimal128Builder(mem, dec(15, 2)),
			array.NewDecimal128Builder(mem, dec(15, 2)), array.NewDecimal128Builder(mem, dec(15, 2))
		bf, bl, bs := array.NewStringBuilder(mem), array.NewStringBuilder(mem), array.NewDate32Builder(mem)
		for range q1Rows {
			q := r.Int64N(50) + 1
			bq.Append(decimal128.FromI64(q * 100))
			be.Append(decimal128.FromI64(q * (90000 + r.Int64N(10000000))))
			bd.Append(decimal128.FromI64(r.Int64N(11)))
			bt.Append(decimal128.FromI64(r.Int64N(9)))
			bf.Append([]string{"A", "N", "R"}[r.IntN(3)])
			bl.Append([]string{"F", "O"}[r.IntN(2)])
			bs.Append(arrow.Date32(8000 + r.IntN(2526)))
		}
		bld := []array.Builder{bq, be, bd, bt, bf, bl, bs}
		cols := make([]arrow.Array, len(bld))
		for i, x := range bld {
			cols[i] = x.NewArray()
			x.Release()
		}
		out[k] = array.NewRecordBatch(q1Schema, cols, int64(q1Rows))
		for _, c := range cols {
			c.Release()
		}
	}
	return out
}

// q1Aggregate is TPC-H Q1's aggregate with its WHERE fused, over input.
func q1Aggregate(input exec.Operator, env exec.Env) *ops.Aggregate {
	p, d, t := col(1, dec(15, 2)), col(2, dec(15, 2)), col(3, dec(15, 2))
	one := decLit(100, 15, 2)
	disc := call("multiply", dec(31, 4), p, call("subtract", dec(16, 2), one, d))
	charge := call("multiply", dec(38, 6), disc, call("add", dec(16, 2), one, t))
	aggs := []plan.AggCall{
		agg("sum", dec(38, 2), false, col(0, dec(15, 2))), agg("sum", dec(38, 2), false, p),
		agg("sum", dec(38, 4), false, disc), agg("sum", dec(38, 6), false, charge),
		agg("avg", f64, false, col(0, dec(15, 2))), agg("avg", f64, false, p), agg("avg", f64, false, d),
		agg("count", i64, false),
	}
	keys := []plan.Expr{col(4, str), col(5, str)}
	a := ops.NewAggregate(input, keys, aggs, aggOutSchema(keys, aggs), env)
	a.SetInputFilter(call("lte", bln, col(6, dt32), lit(arrow.Date32(10470))))
	return a
}

// BenchmarkAggregateQ1 measures TPC-H Q1's fused filter and aggregate without a scan, on
// lanes and on the general path: `go test -run '^$' -bench AggregateQ1 ./exec/ops/`.
func BenchmarkAggregateQ1(b *testing.B) {
	mem := memory.NewGoAllocator()
	batches := q1Batches(b, mem, (256<<10)/q1Rows)
	defer func() {
		for _, x := range batches {
			x.Release()
		}
	}()
	for _, lanes := range []bool{true, false} {
		name := map[bool]string{true: "lanes", false: "general"}[lanes]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(batches)) * int64(q1Rows))
			for b.Loop() {
				for _, x := range batches {
					x.Retain()
				}
				a := q1Aggregate(exectest.NewSource(q1Schema, batches), exec.Env{Mem: mem})
				if !lanes {
					ops.DisableLanes(a)
				}
				out, err := exec.Collect(context.Background(), a)
				require.NoError(b, err)
				require.Len(b, out, 1)
				require.EqualValues(b, 6, out[0].NumRows())
				out[0].Release()
			}
		})
	}
}

// q1Rows is the rows of each batch (a scan's default batch size).
const q1Rows = 16 << 10
