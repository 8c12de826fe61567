package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// rowSelector is a conjunct that narrows a selection vector directly (no boolean array, only
// the rows still selected tested), besides kernel.ConstCompare: selectRows has the
// contract of ConstCompare.Select, with ok false (sel untouched) when b's columns do not
// have the planned types, so that the conjunct is evaluated instead.
type rowSelector interface {
	selectRows(b arrow.RecordBatch, sel []int32, all bool) (out []int32, ok bool)
}

// strSelector is a string column tested against constants: =, <> or IN (x = a OR x = b ...).
type strSelector struct {
	col int
	set kernel.StrSet
}

func (s strSelector) selectRows(b arrow.RecordBatch, sel []int32, all bool) ([]int32, bool) {
	if s.col >= int(b.NumCols()) {
		return nil, false
	}
	return s.set.Select(b.Column(s.col), sel, all)
}

// colSelector is a comparison of two columns of the same integer-like type.
type colSelector struct {
	left, right int
	cmp         kernel.ColCompare
}

func (s colSelector) selectRows(b arrow.RecordBatch, sel []int32, all bool) ([]int32, bool) {
	if max(s.left, s.right) >= int(b.NumCols()) {
		return nil, false
	}
	return s.cmp.Select(b.Column(s.left), b.Column(s.right), sel, all)
}

// newRowSelector returns the selection-vector form of e, or nil.
func newRowSelector(e plan.Expr) rowSelector {
	c, ok := e.(*plan.Call)
	if !ok {
		return nil
	}
	if c.Func == "or" || c.Func == "equal" || c.Func == "not_equal" {
		if s, ok := strTest(c); ok {
			return s
		}
	}
	if c.Func == "or" {
		return newOrSelector(c) // predicate_or.go
	}
	if len(c.Args) != 2 {
		return nil
	}
	l, lok := c.Args[0].(*plan.ColumnRef)
	r, rok := c.Args[1].(*plan.ColumnRef)
	if !lok || !rok || !arrow.TypeEqual(l.DataType, r.DataType) {
		return nil
	}
	cmp, ok := kernel.NewColCompare(l.DataType, c.Func)
	if !ok {
		return nil
	}
	return colSelector{left: l.Index, right: r.Index, cmp: cmp}
}

// strTest recognizes col = 'a', col <> 'a' and the OR chains of col = 'a' that x IN (...)
// binds to, on one string or binary column.
func strTest(c *plan.Call) (strSelector, bool) {
	if c.Func == "not_equal" {
		col, v, valid, ok := strEquality(c, "not_equal")
		if !ok {
			return strSelector{}, false
		}
		if !valid { // x <> NULL is never TRUE
			return strSelector{col: col, set: kernel.NewStrSet(nil, false)}, true
		}
		return strSelector{col: col, set: kernel.NewStrSet([]string{v}, true)}, true
	}
	col, vals := -1, []string(nil)
	var walk func(e plan.Expr) bool
	walk = func(e plan.Expr) bool {
		call, ok := e.(*plan.Call)
		if ok && call.Func == "or" {
			for _, a := range call.Args {
				if !walk(a) {
					return false
				}
			}
			return true
		}
		if !ok {
			return false
		}
		k, v, valid, ok := strEquality(call, "equal")
		if !ok || (col >= 0 && k != col) {
			return false
		}
		col = k
		if valid { // x = NULL is never TRUE, so it adds nothing to an OR's TRUE rows
			vals = append(vals, v)
		}
		return true
	}
	if !walk(c) || col < 0 {
		return strSelector{}, false
	}
	return strSelector{col: col, set: kernel.NewStrSet(vals, false)}, true
}

// strEquality splits fn(col, 'lit') (either order) on a string or binary column into the
// column, the constant and whether the constant is non-NULL.
func strEquality(c *plan.Call, fn string) (col int, v string, valid, ok bool) {
	if c.Func != fn || len(c.Args) != 2 {
		return 0, "", false, false
	}
	ref, isCol := c.Args[0].(*plan.ColumnRef)
	lit, isLit := c.Args[1].(*plan.Literal)
	if !isCol || !isLit {
		ref, isCol = c.Args[1].(*plan.ColumnRef)
		lit, isLit = c.Args[0].(*plan.Literal)
	}
	if !isCol || !isLit || !kernel.StrSetColumn(ref.DataType) || lit.Value == nil || !kernel.StrSetColumn(lit.Value.DataType()) {
		return 0, "", false, false
	}
	if !lit.Value.IsValid() {
		return ref.Index, "", false, true
	}
	bs, ok := lit.Value.(scalar.BinaryScalar)
	if !ok {
		return 0, "", false, false
	}
	return ref.Index, string(bs.Data()), true, true
}
