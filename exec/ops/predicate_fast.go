package ops

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// preConjunct is one compiled conjunct of a filter: a comparison of a column with a
// constant narrows a selection vector directly (fast, on column col: no boolean array, and
// only the rows the earlier conjuncts kept are tested); anything else is evaluated.
type preConjunct struct {
	ev   expr.Evaluator
	fast *kernel.ConstCompare
	col  int
	sel  rowSelector // another selection-vector form (predicate_select.go), or nil
	cond plan.Expr   // what ev evaluates
}

// compileConjunct compiles c.
func compileConjunct(c plan.Expr, mem memory.Allocator) (preConjunct, error) {
	ev, err := expr.Compile(c, mem)
	if err != nil {
		return preConjunct{}, err
	}
	pc := preConjunct{ev: ev, cond: c}
	pc.fast, pc.col = constCompare(c)
	if pc.fast == nil {
		pc.sel = newRowSelector(c)
	}
	return pc, nil
}

// constCompare returns the kernel form of a comparison of a column with a literal, or nil.
func constCompare(e plan.Expr) (*kernel.ConstCompare, int) {
	c, ok := e.(*plan.Call)
	if !ok || len(c.Args) != 2 {
		return nil, 0
	}
	col, isCol := c.Args[0].(*plan.ColumnRef)
	lit, isLit := c.Args[1].(*plan.Literal)
	litLeft := false
	if !isCol || !isLit {
		col, isCol = c.Args[1].(*plan.ColumnRef)
		lit, isLit = c.Args[0].(*plan.Literal)
		litLeft = true
	}
	if !isCol || !isLit {
		return nil, 0
	}
	cc, ok := kernel.NewConstCompare(col.DataType, c.Func, lit.Value, litLeft)
	if !ok {
		return nil, 0
	}
	return &cc, col.Index
}

// mergeRanges folds every fast comparison into the first fast comparison of the same
// column it can intersect with (l_shipdate >= a AND l_shipdate < b becomes one range test),
// so each column is tested once; the merged conjunct's evaluator (used when its column does
// not have the planned type) is the AND of both. The merged conjunct keeps its place; the
// rows every other conjunct sees only shrink, which is safe (selectConjuncts evaluates the
// others on the whole batch anyway).
func mergeRanges(cs []preConjunct, mem memory.Allocator) ([]preConjunct, error) {
	out := cs[:0:0]
	for _, c := range cs {
		j := slices.IndexFunc(out, func(o preConjunct) bool {
			return c.fast != nil && o.fast != nil && o.col == c.col
		})
		if j >= 0 {
			if m, ok := out[j].fast.Intersect(*c.fast); ok {
				cond := &plan.Call{Func: "and", Args: []plan.Expr{out[j].cond, c.cond}, DataType: arrow.FixedWidthTypes.Boolean,
					Null: out[j].cond.Nullable() || c.cond.Nullable()}
				ev, err := expr.Compile(cond, mem)
				if err != nil {
					return nil, err
				}
				out[j] = preConjunct{ev: ev, fast: &m, col: c.col, cond: cond}
				continue
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// selectConjuncts returns the positions of b's rows where every conjunct of cs is TRUE,
// reusing buf. Each conjunct narrows the rows the earlier ones kept; evaluated conjuncts
// run on the whole batch, so they must be safe on any row (safeConjunct) unless first.
func selectConjuncts(ctx context.Context, cs []preConjunct, b arrow.RecordBatch, buf []int32) ([]int32, error) {
	sel, all := buf[:0], true
	for _, c := range cs {
		if !all && len(sel) == 0 {
			break
		}
		if c.fast != nil {
			if out, ok := c.fast.Select(b.Column(c.col), sel, all); ok {
				sel, all = out, false
				continue
			}
		}
		if c.sel != nil {
			if out, ok := c.sel.selectRows(b, sel, all); ok {
				sel, all = out, false
				continue
			}
		}
		v, err := c.ev.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		if all {
			sel, err = kernel.SelectTrue(v, sel)
		} else {
			sel = kernel.SelectTrueIn(v, sel)
		}
		v.Release()
		if err != nil {
			return nil, err
		}
		all = false
	}
	if all { // no conjuncts: every row
		sel = kernel.Iota32(sel, int(b.NumRows()))
	}
	return sel, nil
}
