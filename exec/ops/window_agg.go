package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// aggInput is a framed aggregate's argument and FILTER, in input row order.
type aggInput struct {
	call    plan.AggCall
	arg     arrow.Array // nil for count(*)
	include []bool      // nil: every row
}

func (in *aggInput) release() {
	if in.arg != nil {
		in.arg.Release()
	}
}

// counts reports whether input row r is folded in (included and, unless count(*), valid).
func (in *aggInput) counts(r int) bool {
	return (in.include == nil || in.include[r]) && (in.arg == nil || kernel.IsValid(in.arg, r))
}

func newAggInput(ctx context.Context, env exec.Env, all arrow.RecordBatch, f plan.WindowFunc) (*aggInput, error) {
	in := &aggInput{call: plan.AggCall{Func: f.Func, Args: f.Args, Distinct: f.Distinct, Filter: f.Filter,
		DataType: f.DataType, Null: f.Null, Name: f.Name}}
	if len(f.Args) > 0 {
		arg, err := evalExpr(ctx, env, all, f.Args[0])
		if err != nil {
			return nil, err
		}
		in.arg = arg
	}
	if f.Filter != nil {
		cond, err := evalExpr(ctx, env, all, f.Filter)
		if err != nil {
			in.release()
			return nil, err
		}
		defer cond.Release()
		bools, ok := cond.(*array.Boolean)
		in.include = make([]bool, cond.Len())
		for r := range in.include {
			in.include[r] = ok && kernel.IsValid(cond, r) && bools.Value(r)
		}
	}
	return in, nil
}

// windowAggregate computes an aggregate over every row's frame, in input row order.
func windowAggregate(ctx context.Context, env exec.Env, all arrow.RecordBatch, l *windowLayout, f plan.WindowFunc) (arrow.Array, error) {
	fs, fe, err := frameBounds(ctx, env, all, l, f.Frame)
	if err != nil {
		return nil, err
	}
	in, err := newAggInput(ctx, env, all, f)
	if err != nil {
		return nil, err
	}
	defer in.release()
	if !f.Distinct || f.Func == "min" || f.Func == "max" {
		var k valueKind
		ok := in.arg != nil && in.arg.DataType().ID() != arrow.NULL
		if ok {
			k, ok = kindOf(in.arg.DataType())
		}
		switch {
		case f.Func == "count" || f.Func == "count_star":
			return windowCount(env, l, in, fs, fe)
		case (f.Func == "sum" || f.Func == "avg") && ok && k != kindString && k != kindBool && numericArg(in.arg.DataType()):
			return windowSum(env, l, in, k, fs, fe)
		case (f.Func == "min" || f.Func == "max") && ok:
			return windowMinMax(ctx, env, l, in, fs, fe)
		}
	}
	return windowFold(ctx, env, l, in, fs, fe)
}

// numericArg reports whether sum/avg can add values of dt (integers, floats, decimals).
func numericArg(dt arrow.DataType) bool {
	return dt.ID() == arrow.DECIMAL128 || arrow.IsInteger(dt.ID()) || arrow.IsFloating(dt.ID())
}

// prefixCounts returns, over positions, the running number of rows folded in.
func prefixCounts(l *windowLayout, in *aggInput) []int64 {
	p := make([]int64, l.n+1)
	for j, row := range l.perm {
		p[j+1] = p[j]
		if in.counts(int(row)) {
			p[j+1]++
		}
	}
	return p
}

// frameCount is the number of rows folded in over [s, e) by prefix counts p.
func frameCount(p []int64, s, e int32) int64 {
	if s >= e {
		return 0
	}
	return p[e] - p[s]
}

// windowCount is count(*) and count(x) by prefix counts.
func windowCount(env exec.Env, l *windowLayout, in *aggInput, fs, fe []int32) (arrow.Array, error) {
	p := prefixCounts(l, in)
	acc := &countAcc{counts: make([]int64, l.n)}
	for i, row := range l.perm {
		acc.counts[row] = frameCount(p, fs[i], fe[i])
	}
	return acc.finish(env.Mem, arrow.PrimitiveTypes.Int64)
}

// windowSum is sum(x) and avg(x): exact 128-bit prefix sums for integers and decimals, a
// segment tree of float64 sums for floats (prefix differences would cancel badly).
func windowSum(env exec.Env, l *windowLayout, in *aggInput, k valueKind, fs, fe []int32) (arrow.Array, error) {
	p := prefixCounts(l, in)
	acc := &sumAcc{kind: k, avg: in.call.Func == "avg", scale: decimalScale(in.arg.DataType())}
	acc.resize(l.n)
	for i, row := range l.perm {
		acc.counts[row] = frameCount(p, fs[i], fe[i])
	}
	if k == kindFloat {
		get := floatGetter(in.arg)
		leaves := make([]float64, l.n)
		for j, row := range l.perm {
			if in.counts(int(row)) {
				leaves[j] = get(int(row))
			}
		}
		tree := newSegTree(leaves, 0, func(a, b float64) float64 { return a + b })
		for i, row := range l.perm {
			if acc.counts[row] > 0 {
				acc.floats[row] = tree.query(int(fs[i]), int(fe[i]))
			}
		}
		return acc.finish(env.Mem, in.call.DataType)
	}
	get := numGetter(in.arg, k)
	sums := make([]decimal128.Num, l.n+1)
	for j, row := range l.perm {
		sums[j+1] = sums[j]
		if in.counts(int(row)) {
			sums[j+1] = sums[j+1].Add(get(int(row)))
		}
	}
	for i, row := range l.perm {
		if acc.counts[row] > 0 {
			d := sums[fe[i]].Sub(sums[fs[i]])
			acc.ints[row] = kernel.Int128{Hi: d.HighBits(), Lo: d.LowBits()}
		}
	}
	return acc.finish(env.Mem, in.call.DataType)
}

// windowMinMax is min(x) and max(x) by a segment tree of the positions of the extreme
// values (compared as ORDER BY compares them: NaN above every number).
func windowMinMax(ctx context.Context, env exec.Env, l *windowLayout, in *aggInput, fs, fe []int32) (arrow.Array, error) {
	cmp, err := valueComparator(in.arg)
	if err != nil {
		return nil, err
	}
	sign := 1
	if in.call.Func == "max" {
		sign = -1
	}
	leaves := make([]int32, l.n)
	for j, row := range l.perm {
		leaves[j] = -1
		if in.counts(int(row)) {
			leaves[j] = row
		}
	}
	tree := newSegTree(leaves, -1, func(a, b int32) int32 {
		switch {
		case a < 0:
			return b
		case b < 0 || sign*cmp(int(a), int(b)) <= 0:
			return a
		}
		return b
	})
	idx := make([]int64, l.n)
	for i, row := range l.perm {
		idx[row] = -1
		if fs[i] < fe[i] {
			idx[row] = int64(tree.query(int(fs[i]), int(fe[i])))
		}
	}
	return windowTake(ctx, env, in.arg, idx)
}
