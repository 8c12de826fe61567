package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

func dec(p, s int32) *arrow.Decimal128Type { return &arrow.Decimal128Type{Precision: p, Scale: s} }

// decLit is a decimal literal: v in steps of 10^-s.
func decLit(v int64, p, s int32) *plan.Literal {
	return &plan.Literal{Value: scalar.NewDecimal128Scalar(decimal128.FromI64(v), dec(p, s))}
}

// laneSchema: g a short string key (NULL sometimes), p/d/t decimal(15,2) as TPC-H's price,
// discount and tax (p NULL in rows 40-79 only, so some batches have no NULL), m
// decimal(10,3), w decimal(38,2) beyond int64 in rows 100-109, k a FILTER flag.
var laneSchema = schema(field("g", str), field("p", dec(15, 2)), field("d", dec(15, 2)), field("t", dec(15, 2)),
	field("m", dec(10, 3)), field("w", dec(38, 2)), field("k", bln))

func laneRows(n int) exectest.Rows {
	r := rand.New(rand.NewPCG(7, 11))
	keys := []any{"A", "N", "R", nil, "F"}
	cents := func(v int64) string { return fmt.Sprintf("%d.%02d", v/100, v%100) }
	var rows exectest.Rows
	for i := range n {
		var p any = cents(r.Int64N(10_000_000))
		if i >= 40 && i < 80 && i%3 == 0 {
			p = nil
		}
		w := cents(r.Int64N(1_000_000))
		if i >= 100 && i < 110 {
			w = "123456789012345678901.25" // beyond int64 in steps of 0.01
		}
		m := fmt.Sprintf("%d.%03d", r.Int64N(2000)-1000, r.Int64N(1000))
		rows = append(rows, []any{keys[r.IntN(len(keys))], p, cents(r.Int64N(11)), cents(r.Int64N(9)), m, w, r.IntN(3) > 0})
	}
	return rows
}

// laneAggs: TPC-H Q1's sums and averages (shared subexpressions), a subtraction, an
// addition rescaling one side, a column beyond int64 in some batches, a product with a
// literal, a FILTER, and aggregates not on lanes (DISTINCT, min, count).
func laneAggs() []plan.AggCall {
	p, d, t, m, w, k := col(1, dec(15, 2)), col(2, dec(15, 2)), col(3, dec(15, 2)), col(4, dec(10, 3)), col(5, dec(38, 2)), col(6, bln)
	one := decLit(100, 15, 2)
	disc := call("multiply", dec(31, 4), p, call("subtract", dec(16, 2), one, d))
	charge := call("multiply", dec(38, 6), disc, call("add", dec(16, 2), one, t))
	filtered := agg("sum", dec(38, 4), false, disc)
	filtered.Filter = k
	return []plan.AggCall{
		agg("sum", dec(38, 2), false, p), agg("sum", dec(38, 4), false, disc), agg("sum", dec(38, 6), false, charge),
		agg("avg", f64, false, p), agg("avg", f64, false, d), agg("count", i64, false),
		agg("sum", dec(38, 2), false, call("subtract", dec(16, 2), p, d)),
		agg("sum", dec(38, 3), false, call("add", dec(17, 3), p, m)),
		agg("sum", dec(38, 2), false, w), agg("sum", dec(38, 4), false, call("multiply", dec(38, 4), w, d)),
		agg("avg", f64, false, call("multiply", dec(20, 5), decLit(-15, 4, 3), m)),
		filtered, agg("sum", dec(38, 2), true, p), agg("min", dec(15, 2), false, p), agg("count", i64, false, p),
	}
}

// fastPath is an aggregate's fast path as tests see it: how to turn it off, and how much it
// was used.
type fastPath struct {
	off  func(*ops.Aggregate)
	used func(*ops.Aggregate) int
}

var (
	lanesPath     = fastPath{ops.DisableLanes, ops.LaneBatches}
	packedKeyPath = fastPath{ops.DisableSmallKeys, ops.SmallKeysCached}
)

// generalAggregate runs the aggregate make builds over rows (of schema sch) in one batch,
// with the fast path off: the expected result of the fast path.
func generalAggregate(t *testing.T, sch *arrow.Schema, make func(exec.Operator, exec.Env) *ops.Aggregate,
	fast fastPath, rows exectest.Rows) exectest.Rows {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	batches, err := exectest.MakeBatches(mem, sch, rows, 0, exectest.Plain)
	require.NoError(t, err)
	a := make(exectest.NewSource(sch, batches), exec.Env{Mem: mem})
	fast.off(a)
	got, err := exec.Collect(context.Background(), a)
	require.NoError(t, err)
	defer func() {
		for _, b := range got {
			b.Release()
		}
	}()
	require.Zero(t, fast.used(a))
	return exectest.ToRows(got)
}

// TestAggregateLanes: sums and averages on int64 lanes give what the general path gives,
// grouped and not, with and without a fused filter, at every batch size and layout (NULLs
// with junk under them, sliced arrays), and the lanes are used where they apply.
func TestAggregateLanes(t *testing.T) {
	rows := laneRows(130)
	dt := col(2, dec(15, 2))
	conds := map[string]plan.Expr{
		"none": nil,
		"most": call("lte", bln, dt, decLit(9, 15, 2)), // masked batches
		"few":  call("lt", bln, dt, decLit(2, 15, 2)),  // taken batches
	}
	for name, cond := range conds {
		for _, keys := range [][]plan.Expr{nil, {col(0, str)}} {
			requireFastPath(t, fastCase{name: fmt.Sprintf("%s/keys=%d", name, len(keys)), schema: laneSchema,
				rows: rows, keys: keys, aggs: laneAggs(), cond: cond}, lanesPath)
		}
	}
}

// TestAggregateLanesFused: grouped sums summed in fused passes (nine nodes: passes of six
// and three) give what the general path gives, with and without a fused filter
// (masked batches send their left-out rows to the extra group), at every batch size and
// layout.
func TestAggregateLanesFused(t *testing.T) {
	rows := laneRows(130)
	fused := fastPath{ops.DisableLanes, ops.FusedLaneBatches}
	conds := map[string]plan.Expr{
		"none": nil,
		"most": call("lte", bln, col(2, dec(15, 2)), decLit(9, 15, 2)),
	}
	for name, cond := range conds {
		requireFastPath(t, fastCase{name: name, schema: laneSchema, rows: rows,
			keys: []plan.Expr{col(0, str)}, aggs: laneAggs(), cond: cond}, fused)
	}
}

// fastCase is an aggregate (with a fused filter when cond is set) over rows, for
// requireFastPath.
type fastCase struct {
	name   string
	schema *arrow.Schema
	rows   exectest.Rows
	keys   []plan.Expr
	aggs   []plan.AggCall
	cond   plan.Expr
}

// requireFastPath runs c at every batch size and layout and requires the result of the
// general path (fast turned off) and some use of fast.
func requireFastPath(t *testing.T, c fastCase, fast fastPath) {
	t.Helper()
	out := aggOutSchema(c.keys, c.aggs)
	var made []*ops.Aggregate
	make := func(in exec.Operator, env exec.Env) *ops.Aggregate {
		a := ops.NewAggregate(in, c.keys, c.aggs, out, env)
		if c.cond != nil {
			a.SetInputFilter(c.cond)
		}
		made = append(made, a)
		return a
	}
	want := generalAggregate(t, c.schema, make, fast, c.rows)
	require.NotEmpty(t, want)
	made = nil
	exectest.Run(t, exectest.Case{Name: c.name, Schema: c.schema, Input: c.rows, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) { return make(in, env), nil }})
	used := 0
	for _, a := range made {
		used += fast.used(a)
	}
	require.Positive(t, used, "%s: the fast path was not used", c.name)
}

// TestAggregateLanesBounds: a product typed narrower than its operands' bounds allow takes
// the general path (no row overflows, so no error), and one whose rows do overflow fails
// as on the general path.
func TestAggregateLanesBounds(t *testing.T) {
	// p*d < 1 row by row (p < 10 where d = 0.10, d = 0.01 elsewhere), so it fits
	// decimal(4,4), but the bounds (99.99 * 0.10) do not prove it
	var rows exectest.Rows
	for i := range 50 {
		p, d := fmt.Sprintf("%d.99", 90+i%10), "0.01"
		if i%2 == 0 {
			p, d = fmt.Sprintf("%d.50", i%10), "0.10"
		}
		rows = append(rows, []any{"A", p, d, "0.00", "0.000", "0.00", true})
	}
	p, d := col(1, dec(15, 2)), col(2, dec(15, 2))
	narrow := []plan.AggCall{agg("sum", dec(38, 4), false, call("multiply", dec(4, 4), p, d))}
	out := aggOutSchema(nil, narrow)
	make := func(in exec.Operator, env exec.Env) *ops.Aggregate {
		return ops.NewAggregate(in, nil, narrow, out, env)
	}
	want := generalAggregate(t, laneSchema, make, lanesPath, rows)
	// 5 * 0.10 * (0.5+2.5+4.5+6.5+8.5) + 5 * 0.01 * (91.99+93.99+95.99+97.99+99.99)
	require.Equal(t, exectest.Rows{{"35.2475"}}, want)
	c := exectest.Case{Name: "loose-bound", Schema: laneSchema, Input: rows, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) { return make(in, env), nil }}
	exectest.Run(t, c)

	rows = append(rows, []any{"A", "90.50", "0.10", "0.00", "0.000", "0.00", true}) // 9.05
	c = exectest.Case{Name: "overflow", Schema: laneSchema, Input: rows,
		Make:    func(in exec.Operator, env exec.Env) (exec.Operator, error) { return make(in, env), nil },
		WantErr: func(t *testing.T, err error) { require.ErrorContains(t, err, "out of range") }}
	exectest.Run(t, c)
}

// TestAggregateSharedScales: sum(p * 1.0) and sum(p * 1.00) print alike (a decimal literal's
// text leaves its scale out) but have different types; neither the lanes nor the shared
// subexpressions may compute one of them at the other's scale.
func TestAggregateSharedScales(t *testing.T) {
	sch := schema(field("p", dec(15, 2)))
	var rows exectest.Rows
	for range 10 {
		rows = append(rows, []any{"2.00"})
	}
	p := col(0, dec(15, 2))
	aggs := []plan.AggCall{
		agg("sum", dec(38, 3), false, call("multiply", dec(17, 3), p, decLit(10, 2, 1))),  // p * 1.0
		agg("sum", dec(38, 4), false, call("multiply", dec(18, 4), p, decLit(100, 3, 2))), // p * 1.00
	}
	out := aggOutSchema(nil, aggs)
	make := func(in exec.Operator, env exec.Env) *ops.Aggregate { return ops.NewAggregate(in, nil, aggs, out, env) }
	want := generalAggregate(t, sch, make, lanesPath, rows)
	require.Equal(t, exectest.Rows{{"20", "20"}}, want, "the general path (shared subexpressions)")
	exectest.Run(t, exectest.Case{Name: "lanes", Schema: sch, Input: rows, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) { return make(in, env), nil }})
}
