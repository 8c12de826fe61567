package bind

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// unnestContext collects the UNNEST calls of one select list: one plan.Unnest above the
// window functions and below the projection computes them all, zipped.
type unnestContext struct {
	lists  []plan.Expr
	inside bool // binding an UNNEST argument
}

// unnestRef stands for the elements of UNNEST call k until the Unnest node exists.
type unnestRef struct {
	k   int
	typ arrow.DataType
}

// Type implements plan.Expr.
func (u *unnestRef) Type() arrow.DataType { return u.typ }

// Nullable implements plan.Expr.
func (u *unnestRef) Nullable() bool { return true }

func (u *unnestRef) String() string { return fmt.Sprintf("unnest#%d", u.k) }

// bindUnnest binds unnest(list) in the select list to a placeholder for its elements.
func (eb *exprBinder) bindUnnest(e *ast.FuncCall) (plan.Expr, error) {
	uc := eb.unnest
	switch {
	case uc == nil:
		return nil, dberr.New(dberr.Binder, "UNNEST not supported here")
	case uc.inside:
		return nil, dberr.NotSupported("nested UNNEST")
	case len(e.Args) != 1:
		return nil, dberr.NotSupported("UNNEST with more than one argument")
	case e.Distinct || e.Star || e.Over != nil || e.Filter != nil:
		return nil, dberr.New(dberr.Binder, "UNNEST is not an aggregate or window function")
	}
	uc.inside = true
	x, err := eb.bind(e.Args[0])
	uc.inside = false
	if err != nil {
		return nil, err
	}
	if err := checkUnnestType(x.Type()); err != nil {
		return nil, err
	}
	uc.lists = append(uc.lists, x)
	return &unnestRef{k: len(uc.lists) - 1, typ: plan.ListElem(x.Type())}, nil
}

// addUnnest puts the select list's UNNEST calls above node and points the bound
// expressions at their element columns.
func (st *selectState) addUnnest(node plan.Node, uc *unnestContext) (plan.Node, error) {
	if uc == nil || len(uc.lists) == 0 {
		return node, nil
	}
	if c := st.in.corr; c != nil && len(c.inner) > 0 {
		return nil, dberr.NotSupported("UNNEST in correlated subqueries").At(st.s.Pos.Line, st.s.Pos.Column)
	}
	lists := uc.lists
	if w := windowBelow(node); w != nil {
		width := w.Input.Schema().NumFields()
		for i, l := range lists {
			lists[i] = replaceWindowRefs(l, w, width)
		}
	}
	names := make([]string, len(lists))
	for i := range names {
		names[i] = fmt.Sprintf("unnest%d", i)
	}
	width := node.Schema().NumFields()
	u := plan.NewUnnest(node, lists, names)
	for i, e := range st.exprs {
		st.exprs[i] = replaceUnnestRefs(e, u, width)
	}
	for i, e := range st.hidden {
		st.hidden[i] = replaceUnnestRefs(e, u, width)
	}
	return u, nil
}

// windowBelow is the Window node at the top of node (under QUALIFY's filter), if any.
func windowBelow(node plan.Node) *plan.Window {
	if f, ok := node.(*plan.Filter); ok {
		node = f.Input
	}
	w, _ := node.(*plan.Window)
	return w
}

// replaceUnnestRefs rewrites UNNEST placeholders into columns width+k of the Unnest node.
func replaceUnnestRefs(e plan.Expr, u *plan.Unnest, width int) plan.Expr {
	return substitute(e, func(e plan.Expr) (plan.Expr, bool) {
		x, ok := e.(*unnestRef)
		if !ok {
			return nil, false
		}
		f := u.Schema().Field(width + x.k)
		return &plan.ColumnRef{Index: width + x.k, Name: f.Name, DataType: f.Type, Null: true}, true
	})
}

// substitute returns e with every subexpression for which f answers true replaced by f's
// result (calls and casts are copied; e itself is never modified).
func substitute(e plan.Expr, f func(plan.Expr) (plan.Expr, bool)) plan.Expr {
	if out, ok := f(e); ok {
		return out
	}
	switch x := e.(type) {
	case *plan.Call:
		out := *x
		out.Args = make([]plan.Expr, len(x.Args))
		for i, a := range x.Args {
			out.Args[i] = substitute(a, f)
		}
		return &out
	case *plan.Cast:
		out := *x
		out.Input = substitute(x.Input, f)
		return &out
	}
	return e
}

// isNullValue reports whether e is an untyped NULL that keeps DuckDB's type "NULL" in the
// select list: a NULL literal, or UNNEST(NULL).
func isNullValue(e plan.Expr) bool {
	switch e.(type) {
	case *plan.Literal, *unnestRef:
		return true
	}
	return false
}
