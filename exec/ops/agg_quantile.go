package ops

import (
	"context"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/decfloat"
	"github.com/flightd/flightd/planner/plan"
)

// orderStatAcc is median, quantile_cont, quantile_disc, mode, arg_max and arg_min: it
// keeps every non-NULL value of a group and picks or interpolates at the end. arg_max and
// arg_min take two arguments, packed into one struct (x, y) by packArgs.
type orderStatAcc struct {
	fn    string
	q     float64
	store rowStore
	refs  [][]int64 // per group: positions of its values in store
}

func newOrderStatAcc(call plan.AggCall, argType arrow.DataType, mem memory.Allocator) (accumulator, error) {
	acc := &orderStatAcc{fn: call.Func, q: 0.5, store: rowStore{mem: mem, dt: argType}}
	if call.Func == "quantile_cont" || call.Func == "quantile_disc" {
		lit, ok := call.Args[1].(*plan.Literal)
		if !ok {
			return nil, dberr.NotSupported(call.Func + " with a non-constant quantile")
		}
		sc, err := lit.Value.CastTo(arrow.PrimitiveTypes.Float64)
		f, isFloat := sc.(*scalar.Float64)
		if err != nil || !isFloat || !f.IsValid() {
			return nil, dberr.New(dberr.Binder, "%s: the quantile must be a number", call.Func)
		}
		acc.q = f.Value
	}
	return acc, nil
}

func (a *orderStatAcc) resize(n int) {
	for len(a.refs) < n {
		a.refs = append(a.refs, nil)
	}
}

// parts returns the column the values are ordered by and the value column: y and x of
// arg_max/arg_min's (x, y), else the argument for both.
func (a *orderStatAcc) parts(arr arrow.Array) (key, value arrow.Array) {
	if s, ok := arr.(*array.Struct); ok && (a.fn == "arg_max" || a.fn == "arg_min") {
		return s.Field(1), s.Field(0)
	}
	return arr, arr
}

func (a *orderStatAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	k, x := a.parts(arg) // arg_max and arg_min skip rows where either argument is NULL
	var rows []int32
	for i := range groups {
		if (include == nil || include[i]) && kernel.IsValid(k, i) && kernel.IsValid(x, i) {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	base, err := a.store.takeRows(arg, rows)
	if err != nil {
		return err
	}
	for j, r := range rows {
		g := groups[r]
		a.refs[g] = append(a.refs[g], base+int64(j))
	}
	return nil
}

func (a *orderStatAcc) stateBytes() int64 { return a.store.bytes + 8*a.store.rows }

func (a *orderStatAcc) release() { a.store.release() }

func (a *orderStatAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	all, err := a.store.gather(identityRefs(a.store.rows))
	if err != nil {
		return nil, err
	}
	defer all.Release()
	k, _ := a.parts(all)
	compare, err := valueComparator(k)
	if err != nil {
		return nil, err
	}
	for _, refs := range a.refs {
		slices.SortStableFunc(refs, func(x, y int64) int { return compare(int(x), int(y)) })
	}
	if (a.fn == "median" || a.fn == "quantile_cont") && (dt.ID() == arrow.FLOAT64 || dt.ID() == arrow.DECIMAL128) {
		return a.interpolate(mem, k, dt)
	}
	picks := make([]int64, len(a.refs))
	for g, refs := range a.refs {
		picks[g] = a.pick(refs, compare)
	}
	res, err := a.store.gather(picks)
	if err != nil {
		return nil, err
	}
	if _, x := a.parts(res); x != res {
		defer res.Release()
		x.Retain()
		return x, nil
	}
	return res, nil
}

func identityRefs(n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// pick returns the position of the group's result among its sorted refs, -1 for none.
func (a *orderStatAcc) pick(refs []int64, compare rowComparator) int64 {
	n := len(refs)
	if n == 0 {
		return -1
	}
	switch a.fn {
	case "arg_min":
		return refs[0]
	case "arg_max":
		// the first row holding the maximum, as DuckDB keeps the first one it sees
		i := n - 1
		for i > 0 && compare(int(refs[i-1]), int(refs[n-1])) == 0 {
			i--
		}
		return refs[i]
	case "mode":
		return modeOf(refs, compare)
	}
	// DuckDB's discrete quantile: the ceil(n*q)-th value
	idx := int(math.Ceil(float64(n)*a.q)) - 1
	return refs[max(min(idx, n-1), 0)]
}

// modeOf is the most frequent value of the sorted refs; among equally frequent ones, the
// one seen first (DuckDB's tie rule). refs are sorted stably from input order, so the first
// ref of a run of equal values is its first occurrence.
func modeOf(refs []int64, compare rowComparator) int64 {
	best, bestN := refs[0], 0
	for i := 0; i < len(refs); {
		j := i + 1
		for j < len(refs) && compare(int(refs[i]), int(refs[j])) == 0 {
			j++
		}
		if j-i > bestN || j-i == bestN && refs[i] < best {
			best, bestN = refs[i], j-i
		}
		i = j
	}
	return best
}

// interpolate computes median/quantile_cont: the value at position q*(n-1) of the sorted
// values, interpolated linearly between its neighbours (DOUBLE, or the input's DECIMAL).
func (a *orderStatAcc) interpolate(mem memory.Allocator, k arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	get, err := quantileGetter(k)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(a.refs))
	valid := make([]bool, len(a.refs))
	for g, refs := range a.refs {
		if len(refs) == 0 {
			continue
		}
		pos := a.q * float64(len(refs)-1)
		lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
		vlo, vhi := get(int(refs[lo])), get(int(refs[hi]))
		out[g], valid[g] = vlo+(pos-float64(lo))*(vhi-vlo), true
	}
	return buildQuantiles(mem, dt, out, valid)
}

func quantileGetter(k arrow.Array) (func(int) float64, error) {
	if d, ok := k.(*array.Decimal128); ok {
		scale := d.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) float64 { return decfloat.ToFloat64(d.Value(i), scale) }, nil
	}
	kind, ok := kindOf(k.DataType())
	if !ok || kind == kindString || kind == kindBool {
		return nil, dberr.NotSupported("median of " + k.DataType().String())
	}
	switch kind {
	case kindFloat:
		return floatGetter(k), nil
	case kindUnsigned:
		get := unsignedGetter(k)
		return func(i int) float64 { return float64(get(i)) }, nil
	}
	get := signedGetter(k)
	return func(i int) float64 { return float64(get(i)) }, nil
}

// buildQuantiles builds the result column: float64, or decimals rounded to dt's scale.
func buildQuantiles(mem memory.Allocator, dt arrow.DataType, vals []float64, valid []bool) (arrow.Array, error) {
	d, isDec := dt.(*arrow.Decimal128Type)
	if !isDec {
		out := kernel.NewFixed[float64](mem, arrow.PrimitiveTypes.Float64, len(vals))
		for i, v := range vals {
			if !valid[i] {
				out.SetNull(i)
			}
			out.Values[i] = v
		}
		return out.Finish(), nil
	}
	out := kernel.NewFixed[decimal128.Num](mem, d, len(vals))
	for i, v := range vals {
		if !valid[i] {
			out.SetNull(i)
			continue
		}
		num, err := decimal128.FromFloat64(v, d.Precision, d.Scale)
		if err != nil {
			out.Release()
			return nil, dberr.Wrap(dberr.OutOfRange, err, "median: %v does not fit %s", v, d)
		}
		out.Values[i] = num
	}
	return out.Finish(), nil
}

// packEval evaluates several expressions into one struct column (f0, f1, ...), the
// argument of a multi-argument aggregate.
type packEval struct {
	args []expr.Evaluator
	dt   *arrow.StructType
	mem  memory.Allocator
}

// packArgs compiles args into one evaluator of a struct of their values.
func packArgs(args []plan.Expr, mem memory.Allocator) (expr.Evaluator, error) {
	evs, err := expr.CompileAll(args, mem)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(args))
	for i, a := range args {
		fields[i] = arrow.Field{Name: "f" + string(rune('0'+i)), Type: a.Type(), Nullable: true}
	}
	return &packEval{args: evs, dt: arrow.StructOf(fields...), mem: mem}, nil
}

// Type implements expr.Evaluator.
func (p *packEval) Type() arrow.DataType { return p.dt }

// Eval implements expr.Evaluator.
func (p *packEval) Eval(ctx context.Context, b arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(p.args))
	defer func() { releaseArrays(cols) }()
	for i, ev := range p.args {
		c, err := ev.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	names := make([]string, len(cols))
	for i := range names {
		names[i] = p.dt.Field(i).Name
	}
	out, err := array.NewStructArray(cols, names)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "aggregate arguments")
	}
	return out, nil
}
