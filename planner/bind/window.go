package bind

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// windowContext collects the window functions of one SELECT: they are computed by one
// plan.Window above the aggregate (or the FROM clause) and below the projection.
type windowContext struct {
	named map[string]ast.WindowSpec // WINDOW clause, by lower-case name
	funcs []plan.WindowFunc
	keys  []string
}

// windowRef stands for the output of window function k until the Window node exists.
type windowRef struct {
	k    int
	typ  arrow.DataType
	null bool
}

// Type implements plan.Expr.
func (w *windowRef) Type() arrow.DataType { return w.typ }

// Nullable implements plan.Expr.
func (w *windowRef) Nullable() bool { return w.null }

func (w *windowRef) String() string { return fmt.Sprintf("window#%d", w.k) }

func newWindowContext(defs []ast.NamedWindow) (*windowContext, error) {
	wc := &windowContext{named: map[string]ast.WindowSpec{}}
	for _, d := range defs {
		key := strings.ToLower(d.Name)
		if _, dup := wc.named[key]; dup {
			return nil, dberr.New(dberr.Binder, "window %q is defined twice", d.Name)
		}
		wc.named[key] = d.Spec
	}
	return wc, nil
}

// resolve merges a spec with the named window it refines.
func (wc *windowContext) resolve(spec *ast.WindowSpec) (ast.WindowSpec, error) {
	if spec.Name == "" {
		return *spec, nil
	}
	base, ok := wc.named[strings.ToLower(spec.Name)]
	if !ok {
		return ast.WindowSpec{}, dberr.New(dberr.Binder, "window %q does not exist", spec.Name)
	}
	out := base
	if len(spec.PartitionBy) > 0 {
		out.PartitionBy = spec.PartitionBy
	}
	if len(spec.OrderBy) > 0 {
		out.OrderBy = spec.OrderBy
	}
	if spec.Frame != nil {
		out.Frame = spec.Frame
	}
	return out, nil
}

// bindWindow binds f(args) OVER (...) and returns a placeholder for its output column.
func (eb *exprBinder) bindWindow(e *ast.FuncCall) (plan.Expr, error) {
	if eb.win == nil {
		return nil, dberr.New(dberr.Binder, "%s cannot contain window functions!", eb.clause)
	}
	wc := eb.win
	spec, err := wc.resolve(e.Over)
	if err != nil {
		return nil, err
	}
	inner := *eb
	inner.win = nil
	inner.clause = "window function arguments"
	var args []plan.Expr
	for _, a := range e.Args {
		x, err := inner.bind(a)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	named := *e
	named.Over = &spec // DuckDB names the column with the named window expanded
	w, err := windowFunc(&named, args)
	if err != nil {
		return nil, err
	}
	if e.Filter != nil {
		cond, err := inner.bind(e.Filter)
		if err != nil {
			return nil, err
		}
		if w.Filter, err = asPredicate(cond, "FILTER", e.Filter.Position()); err != nil {
			return nil, err
		}
	}
	if err := inner.bindWindowSpec(&w, spec); err != nil {
		return nil, err
	}
	key := w.String() + fmt.Sprintf("|%v|%v|%v|%v", w.Distinct, w.IgnoreNulls, w.Filter, frameKey(w.Frame))
	k := len(wc.funcs)
	for i, existing := range wc.keys {
		if existing == key {
			k = i
		}
	}
	if k == len(wc.funcs) {
		wc.funcs, wc.keys = append(wc.funcs, w), append(wc.keys, key)
	}
	return &windowRef{k: k, typ: wc.funcs[k].DataType, null: wc.funcs[k].Null}, nil
}

func frameKey(f *plan.Frame) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%d %d %v %d %v", f.Unit, f.Start.Kind, f.Start.Offset, f.End.Kind, f.End.Offset)
}

// windowFunc types the function of a window call: a ranking/navigation function or an
// aggregate.
func windowFunc(e *ast.FuncCall, args []plan.Expr) (plan.WindowFunc, error) {
	name := aggName(e.Name)
	w := plan.WindowFunc{Func: name, Distinct: e.Distinct, IgnoreNulls: e.IgnoreNulls, Name: ast.Format(e)}
	if e.IgnoreNulls && !ignoreNullsFuncs[name] {
		return w, dberr.New(dberr.Binder, "RESPECT/IGNORE NULLS is not supported for %s", name)
	}
	switch {
	case functions.WindowOnly[name]:
		if e.Star || e.Distinct {
			return w, dberr.New(dberr.Binder, "%s does not take * or DISTINCT", name)
		}
		out, t, null, err := functions.NewWindowFunc(name, args)
		if err != nil {
			return w, err
		}
		w.Args, w.DataType, w.Null = out, t, null
		return w, nil
	case functions.Aggregates[name] && name != "single_value":
		if e.Star && name != "count" {
			return w, dberr.New(dberr.Binder, "%s(*) is only valid for count", name)
		}
		agg, err := functions.NewAgg(name, args, e.Distinct, w.Name)
		if err != nil {
			return w, err
		}
		w.Args, w.DataType, w.Null = agg.Args, agg.DataType, agg.Null
		return w, nil
	}
	return w, dberr.New(dberr.Catalog, "%s is not a window function", e.Name)
}

// ignoreNullsFuncs are the window functions that take IGNORE NULLS, as in DuckDB.
var ignoreNullsFuncs = map[string]bool{"lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true}

var frameUnits = map[string]plan.FrameUnit{"ROWS": plan.FrameRows, "RANGE": plan.FrameRange, "GROUPS": plan.FrameGroups}

var boundKinds = map[string]plan.BoundKind{
	"UNBOUNDED PRECEDING": plan.UnboundedPreceding, "PRECEDING": plan.Preceding,
	"CURRENT ROW": plan.CurrentRow, "FOLLOWING": plan.Following,
	"UNBOUNDED FOLLOWING": plan.UnboundedFollowing,
}

// bindWindowSpec binds PARTITION BY, ORDER BY and the frame into w.
func (eb *exprBinder) bindWindowSpec(w *plan.WindowFunc, spec ast.WindowSpec) error {
	for _, p := range spec.PartitionBy {
		x, err := eb.bind(p)
		if err != nil {
			return err
		}
		w.PartitionBy = append(w.PartitionBy, x)
	}
	for _, o := range spec.OrderBy {
		x, err := eb.bind(o.Expr)
		if err != nil {
			return err
		}
		k := plan.SortKey{Expr: x, Descending: o.Desc}
		if o.NullsFirst != nil {
			k.NullsFirst = *o.NullsFirst
		}
		w.OrderBy = append(w.OrderBy, k)
	}
	if spec.Frame == nil {
		return nil
	}
	f := &plan.Frame{Unit: frameUnits[spec.Frame.Unit]}
	var err error
	if f.Start, err = eb.frameBound(spec.Frame.Start, f.Unit); err != nil {
		return err
	}
	f.End = plan.FrameBound{Kind: plan.CurrentRow}
	if spec.Frame.End != nil {
		if f.End, err = eb.frameBound(*spec.Frame.End, f.Unit); err != nil {
			return err
		}
	}
	w.Frame = f
	return nil
}

// frameBound binds one frame bound. Offsets are usually constants (integers for ROWS and
// GROUPS); as in DuckDB they may also be expressions over the row, evaluated per row (the
// executor rejects NULL and negative values).
func (eb *exprBinder) frameBound(b ast.FrameBoundSpec, unit plan.FrameUnit) (plan.FrameBound, error) {
	out := plan.FrameBound{Kind: boundKinds[b.Kind]}
	if b.Offset == nil {
		return out, nil
	}
	cb := &exprBinder{b: eb.b, scope: &scope{noColumns: true}, clause: "window frame"}
	x, err := cb.bind(b.Offset)
	if err != nil {
		rowBinder := *eb
		rowBinder.clause = "window frame"
		if x, err = rowBinder.bind(b.Offset); err != nil {
			return out, err
		}
	}
	x = foldInteger(x)
	if unit != plan.FrameRange {
		if _, isLit := x.(*plan.Literal); !isLit && arrow.IsInteger(x.Type().ID()) {
			out.Offset = x
			return out, nil
		}
		n, ok := int64Of(x)
		if !ok || n < 0 {
			return out, dberr.New(dberr.Binder, "a ROWS or GROUPS frame offset must be a non-negative integer")
		}
		x = &plan.Literal{Value: scalar.NewInt64Scalar(n)}
	}
	out.Offset = x
	return out, nil
}

// replaceWindowRefs rewrites window placeholders into columns width+k of the Window node.
func replaceWindowRefs(e plan.Expr, w *plan.Window, width int) plan.Expr {
	return substitute(e, func(e plan.Expr) (plan.Expr, bool) { // unnest.go
		x, ok := e.(*windowRef)
		if !ok {
			return nil, false
		}
		f := w.Schema().Field(width + x.k)
		return &plan.ColumnRef{Index: width + x.k, Name: f.Name, DataType: f.Type, Null: f.Nullable}, true
	})
}
