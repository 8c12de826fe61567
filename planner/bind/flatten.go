package bind

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// Flattening arbitrary correlated subqueries, after Neumann & Kemper's "Unnesting
// arbitrary queries" as DuckDB implements it. A subquery the other decorrelations refuse
// (LIMIT, ORDER BY ... LIMIT, GROUP BY, DISTINCT, window functions and set operations over
// correlated input, outer columns in select lists and aggregates, correlation more than
// one level up) is bound in general mode: its outer references stay in its expressions.
// flattener then pushes the domain D, the distinct values of the outer columns the
// subquery reads, through every operator, so that the rewritten plan computes the
// subquery for all D rows at once, each result row tagged with its D row:
//
//   - a subtree without outer references is cross joined with D;
//   - Filter and Project read the D columns in place of the outer references;
//   - an Aggregate also groups by D; an ungrouped one runs over input ⟖ D, so that every D
//     row gets its row (count 0, sum NULL), as in domain.go;
//   - Window partitions by D; LIMIT (over ORDER BY) becomes a row_number per D row;
//   - joins and set operations carry D on both sides and match it NULL-safely.
//
// The result joins back onto the outer query on NULL-safe keys (general.go). References
// to queries further out are left in place: they are constants here, and the enclosing
// subquery is flattened in turn.

// flattener rewrites one general-mode subquery plan over its domain.
type flattener struct {
	outer *scope            // the scope local outer references resolve into
	cols  []*plan.ColumnRef // the outer columns n reads, as they resolved
	over  []plan.Expr       // the same columns over the node D is built from
	index map[int]int       // outer column index -> position in D
	d     plan.Node         // D: SELECT DISTINCT over FROM input
}

// newFlattener collects the local outer columns n reads and builds D over input. mapCol,
// when set, maps an outer column to its expression over input (a grouped outer query's
// group key); by default the columns are input's own.
func newFlattener(outer *scope, n plan.Node, input plan.Node, mapCol func(*plan.ColumnRef) (plan.Expr, error)) (*flattener, error) {
	f := &flattener{outer: outer, index: map[int]int{}}
	forEachExpr(n, func(e plan.Expr) {
		walk(e, func(x plan.Expr) {
			if o, ok := x.(*outerRef); ok && f.isLocal(o) {
				if _, seen := f.index[o.col.Index]; !seen {
					f.index[o.col.Index] = len(f.cols)
					f.cols = append(f.cols, o.col)
				}
			}
		})
	})
	if len(f.cols) == 0 {
		return f, nil
	}
	for _, c := range f.cols {
		e := plan.Expr(c)
		if mapCol != nil {
			var err error
			if e, err = mapCol(c); err != nil {
				return nil, err
			}
		}
		f.over = append(f.over, e)
	}
	f.d = distinct(plan.NewProject(input, f.over, domainNames(len(f.cols))))
	return f, nil
}

func domainNames(k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = "__domain" + strconv.Itoa(i)
	}
	return names
}

func (f *flattener) isLocal(o *outerRef) bool { return o.sc == f.outer }

// refs references D's columns from position base on.
func (f *flattener) refs(base int) []plan.Expr {
	out := make([]plan.Expr, len(f.cols))
	for i, c := range f.cols {
		out[i] = &plan.ColumnRef{Index: base + i, Name: "__domain" + strconv.Itoa(i), DataType: c.DataType, Null: f.over[i].Nullable()}
	}
	return out
}

// local replaces the local outer references of e by D's columns from position base on.
func (f *flattener) local(e plan.Expr, base int) plan.Expr {
	if e == nil {
		return nil
	}
	switch x := e.(type) {
	case *outerRef:
		if !f.isLocal(x) {
			return x
		}
		c := *x.col
		c.Index = base + f.index[x.col.Index]
		return &c
	case *plan.Call:
		out := *x
		out.Args = make([]plan.Expr, len(x.Args))
		for i, a := range x.Args {
			out.Args[i] = f.local(a, base)
		}
		return &out
	case *plan.Cast:
		out := *x
		out.Input = f.local(x.Input, base)
		return &out
	}
	return e
}

func (f *flattener) localAll(es []plan.Expr, base int) []plan.Expr {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = f.local(e, base)
	}
	return out
}

// hasLocal reports whether n or a node below it reads a local outer column.
func (f *flattener) hasLocal(n plan.Node) bool {
	found := false
	forEachExpr(n, func(e plan.Expr) { found = found || f.exprLocal(e) })
	return found
}

// exprLocal reports whether e reads a local outer column.
func (f *flattener) exprLocal(e plan.Expr) bool {
	found := false
	walk(e, func(x plan.Expr) {
		if o, ok := x.(*outerRef); ok && f.isLocal(o) {
			found = true
		}
	})
	return found
}

func width(n plan.Node) int { return n.Schema().NumFields() }

// flatten returns n over D: n's columns followed by D's, for every D row the rows n has
// with the outer columns bound to it.
func (f *flattener) flatten(n plan.Node) (plan.Node, error) {
	if !f.hasLocal(n) {
		return plan.NewJoin(n, f.d, plan.CrossJoin, nil, nil, nil), nil
	}
	switch n := n.(type) {
	case *plan.Filter:
		in, err := f.flatten(n.Input)
		if err != nil {
			return nil, err
		}
		return &plan.Filter{Input: in, Cond: f.local(n.Cond, width(n.Input))}, nil
	case *plan.Project:
		in, err := f.flatten(n.Input)
		if err != nil {
			return nil, err
		}
		w := width(n.Input)
		exprs := append(f.localAll(n.Exprs, w), f.refs(w)...)
		return plan.NewProject(in, exprs, append(append([]string{}, n.Names...), domainNames(len(f.cols))...)), nil
	case *plan.Sort:
		in, err := f.flatten(n.Input)
		if err != nil {
			return nil, err
		}
		return &plan.Sort{Input: in, Keys: f.sortKeys(n.Keys, width(n.Input))}, nil
	case *plan.Aggregate:
		return f.aggregate(n)
	case *plan.Limit:
		return f.limit(n)
	case *plan.Window:
		return f.window(n)
	case *plan.Join:
		return f.join(n)
	case *plan.SetOp:
		l, err := f.flatten(n.Left)
		if err != nil {
			return nil, err
		}
		r, err := f.flatten(n.Right)
		if err != nil {
			return nil, err
		}
		return plan.NewSetOp(l, r, n.Kind, n.All), nil
	}
	return nil, dberr.NotSupported(fmt.Sprintf("correlated subqueries over %T nodes that read outer columns", n))
}

func (f *flattener) sortKeys(keys []plan.SortKey, base int) []plan.SortKey {
	out := make([]plan.SortKey, len(keys))
	for i, k := range keys {
		out[i] = plan.SortKey{Expr: f.local(k.Expr, base), Descending: k.Descending, NullsFirst: k.NullsFirst}
	}
	return out
}

// moveDomain projects n, whose D columns sit at dpos, so that they come last.
func moveDomain(n plan.Node, dpos int, k int) plan.Node {
	s := n.Schema()
	all := columnRefs(s, s.NumFields())
	exprs := append(append(append([]plan.Expr{}, all[:dpos]...), all[dpos+k:]...), all[dpos:dpos+k]...)
	names := make([]string, len(exprs))
	for i, e := range exprs {
		names[i] = s.Field(e.(*plan.ColumnRef).Index).Name
	}
	return plan.NewProject(n, exprs, names)
}

// aggregate groups by D as well. An ungrouped aggregate runs over input ⟖ D with a marker
// that keeps the NULL rows of unmatched D rows out of every aggregate.
func (f *flattener) aggregate(a *plan.Aggregate) (plan.Node, error) {
	in, err := f.flatten(a.Input)
	if err != nil {
		return nil, err
	}
	w, k := width(a.Input), len(f.cols)
	aggs := make([]plan.AggCall, len(a.Aggs))
	for i, c := range a.Aggs {
		c.Args = f.localAll(c.Args, w)
		c.Filter = f.local(c.Filter, w)
		aggs[i] = c
	}
	groups := f.localAll(a.GroupBy, w)
	if len(a.GroupBy) > 0 {
		agg := plan.NewAggregate(in, append(groups, f.refs(w)...), append(append([]string{}, a.Names...), domainNames(k)...), aggs)
		return moveDomain(agg, len(groups), k), nil
	}
	marked, marker := withMarker(in, 0)
	lk, rk, cond, err := nullSafeKeys(f.refs(w), f.refs(0), w+k+1)
	if err != nil {
		return nil, err
	}
	j := plan.NewJoin(marked, f.d, plan.RightJoin, lk, rk, cond)
	for i := range aggs {
		aggs[i].Filter = conjoin(aggs[i].Filter, marker)
	}
	agg := plan.NewAggregate(j, f.refs(w+k+1), domainNames(k), aggs)
	return moveDomain(agg, 0, k), nil
}

func conjoin(a, b plan.Expr) plan.Expr {
	if a == nil {
		return b
	}
	return plan.Conjoin([]plan.Expr{a, b})
}

// limit becomes a filter on row_number() OVER (PARTITION BY D ORDER BY the sort keys).
func (f *flattener) limit(l *plan.Limit) (plan.Node, error) {
	src := l.Input
	var keys []plan.SortKey
	if s, ok := src.(*plan.Sort); ok {
		src, keys = s.Input, s.Keys
	}
	in, err := f.flatten(src)
	if err != nil {
		return nil, err
	}
	w := width(src)
	win := plan.NewWindow(in, []plan.WindowFunc{{
		Func: "row_number", PartitionBy: f.refs(w), OrderBy: f.sortKeys(keys, w),
		DataType: arrow.PrimitiveTypes.Int64, Name: "__rn",
	}})
	rn := fieldRef(win.Schema(), width(in))
	lower, err := functions.NewCall("gt", []plan.Expr{rn, &plan.Literal{Value: scalar.NewInt64Scalar(l.Offset)}})
	if err != nil {
		return nil, err
	}
	cond := plan.Expr(lower)
	if l.Count >= 0 {
		upper, err := functions.NewCall("lte", []plan.Expr{rn, &plan.Literal{Value: scalar.NewInt64Scalar(l.Offset + l.Count)}})
		if err != nil {
			return nil, err
		}
		cond = plan.Conjoin([]plan.Expr{cond, upper})
	}
	filtered := &plan.Filter{Input: win, Cond: cond}
	return plan.NewProject(filtered, columnRefs(in.Schema(), width(in)), fieldNames(in, width(in))), nil
}

// window partitions every function by D as well.
func (f *flattener) window(wn *plan.Window) (plan.Node, error) {
	in, err := f.flatten(wn.Input)
	if err != nil {
		return nil, err
	}
	w := width(wn.Input)
	funcs := make([]plan.WindowFunc, len(wn.Funcs))
	for i, fn := range wn.Funcs {
		fn.Args = f.localAll(fn.Args, w)
		fn.Filter = f.local(fn.Filter, w)
		fn.PartitionBy = append(f.localAll(fn.PartitionBy, w), f.refs(w)...)
		fn.OrderBy = f.sortKeys(fn.OrderBy, w)
		funcs[i] = fn
	}
	return moveDomain(plan.NewWindow(in, funcs), w, len(f.cols)), nil
}

// windowExprs lists the expressions of a window node's functions.
func windowExprs(w *plan.Window) []plan.Expr {
	var es []plan.Expr
	for _, fn := range w.Funcs {
		es = append(append(es, fn.Args...), fn.PartitionBy...)
		if fn.Filter != nil {
			es = append(es, fn.Filter)
		}
		for _, k := range fn.OrderBy {
			es = append(es, k.Expr)
		}
	}
	return es
}

// nested returns a binder for a query block nested in b's FROM clause or set operation: a
// derived table or a set operation's side of a correlated subquery may read the same
// outer columns as the subquery itself. Its outer references stay in place (general
// mode), so the subquery falls back to flattening.
func (b *binder) nested() *binder {
	c := b.child()
	c.outer, c.corr = b.outer, b.nestedCorr()
	return c
}

// nestedCorr is the correlation a nested block or a JOIN condition of b reports outer
// references to; nil when b is not a subquery.
func (b *binder) nestedCorr() *correlation {
	if b.outer == nil {
		return nil
	}
	return &correlation{general: true}
}
