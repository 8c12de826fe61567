package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// Common subexpressions of the aggregates' arguments (TPC-H Q1 sums l_extendedprice *
// (1 - l_discount) alone and inside a larger product) are computed once per batch: each is
// appended to the batch as an extra column, and the arguments read that column instead.
// Only arithmetic is shared (cseFuncs), so nothing volatile is evaluated fewer times.

// cseFuncs are the functions whose calls may be shared.
var cseFuncs = map[string]bool{"add": true, "subtract": true, "multiply": true, "divide": true, "negate": true}

// commonExprs is the shared part of an aggregate's arguments.
type commonExprs struct {
	width  int              // the input's columns; common k is column width+k
	defs   []plan.Expr      // per common subexpression, in terms of the input and later commons
	evals  []expr.Evaluator // compiled defs
	fields []arrow.Field
}

// shareArgs rewrites args (one slice per aggregate) so that every arithmetic call found in
// two places is computed once, and returns the shared definitions; width is the number of
// input columns. It returns nil when nothing is shared.
func shareArgs(args [][]plan.Expr, width int) *commonExprs {
	var cs commonExprs
	cs.width = width
	for {
		best := largestRepeated(args, cs.defs)
		if best == nil {
			break
		}
		ref := &plan.ColumnRef{Index: width + len(cs.defs), Name: "cse", DataType: best.Type(), Null: best.Nullable()}
		key := plan.TypedKey(best)
		for _, as := range args {
			for j, a := range as {
				as[j] = replaceExpr(a, key, ref)
			}
		}
		for k, d := range cs.defs {
			cs.defs[k] = replaceExpr(d, key, ref)
		}
		cs.defs = append(cs.defs, best)
		cs.fields = append(cs.fields, arrow.Field{Name: "cse", Type: best.Type(), Nullable: true})
	}
	if len(cs.defs) == 0 {
		return nil
	}
	return &cs
}

// largestRepeated returns the largest shareable call occurring at least twice in args and
// defs, or nil.
func largestRepeated(args [][]plan.Expr, defs []plan.Expr) plan.Expr {
	seen := map[string]int{}
	var best plan.Expr
	var visit func(e plan.Expr)
	visit = func(e plan.Expr) {
		c, ok := e.(*plan.Call)
		if !ok {
			return
		}
		for _, a := range c.Args {
			visit(a)
		}
		if !cseFuncs[c.Func] {
			return
		}
		key := plan.TypedKey(c)
		seen[key]++
		if seen[key] == 2 && (best == nil || len(key) > len(plan.TypedKey(best))) {
			best = c
		}
	}
	for _, as := range args {
		for _, a := range as {
			visit(a)
		}
	}
	for _, d := range defs {
		if c, ok := d.(*plan.Call); ok { // the definition itself is not an occurrence
			for _, a := range c.Args {
				visit(a)
			}
		}
	}
	return best
}

// replaceExpr returns e with every subexpression whose plan.TypedKey is key replaced by ref.
func replaceExpr(e plan.Expr, key string, ref plan.Expr) plan.Expr {
	c, ok := e.(*plan.Call)
	if !ok {
		return e
	}
	if plan.TypedKey(c) == key {
		return ref
	}
	args := make([]plan.Expr, len(c.Args))
	changed := false
	for i, a := range c.Args {
		args[i] = replaceExpr(a, key, ref)
		changed = changed || args[i] != a
	}
	if !changed {
		return e
	}
	cp := *c
	cp.Args = args
	return &cp
}

// extend returns b with the common subexpressions appended (later definitions first: they
// are the smaller ones the earlier use; columns not computed yet hold a placeholder no
// definition reads). The caller releases the result.
func (cs *commonExprs) extend(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := len(cs.defs)
	cols := make([]arrow.Array, cs.width+n)
	fields := make([]arrow.Field, cs.width+n)
	copy(cols, b.Columns())
	copy(fields, b.Schema().Fields())
	for j := range n {
		cols[cs.width+j], fields[cs.width+j] = b.Column(0), b.Schema().Field(0)
	}
	computed := make([]arrow.Array, 0, n)
	defer func() { releaseArrays(computed) }()
	for k := n - 1; k >= 0; k-- {
		batch := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
		v, err := cs.evals[k].Eval(ctx, batch)
		batch.Release()
		if err != nil {
			return nil, err
		}
		computed = append(computed, v)
		cols[cs.width+k], fields[cs.width+k] = v, cs.fields[k]
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows()), nil
}

// shareCommon finds the common subexpressions of the single-argument aggregates' arguments
// (shareArgs), rewrites a.aggs (a copy: the plan is not changed) and compiles the shared
// definitions. It does nothing without an input with columns.
func (a *Aggregate) shareCommon() error {
	if a.input == nil || a.input.Schema().NumFields() == 0 {
		return nil
	}
	args := make([][]plan.Expr, len(a.aggs))
	for i, call := range a.aggs {
		if len(call.Args) == 1 {
			args[i] = []plan.Expr{call.Args[0]}
		}
	}
	cs := shareArgs(args, a.input.Schema().NumFields())
	if cs == nil {
		return nil
	}
	evs, err := expr.CompileAll(cs.defs, a.evalMem)
	if err != nil {
		return err
	}
	cs.evals = evs
	a.aggs = append([]plan.AggCall(nil), a.aggs...)
	for i := range a.aggs {
		if args[i] != nil {
			a.aggs[i].Args = args[i]
		}
	}
	a.cse = cs
	return nil
}
