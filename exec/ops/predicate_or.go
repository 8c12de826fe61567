package ops

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// branchTest is one conjunct of an OR branch in selection-vector form.
type branchTest struct {
	fast *kernel.ConstCompare
	col  int
	sel  rowSelector
}

// orSelector is an OR of ANDs of conjuncts that all have a selection-vector form (TPC-H
// q19's (l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND ...)): each branch
// narrows its own copy of the selection, and the branches' rows are merged (a row passes when
// some branch keeps it, which is when the OR is TRUE: a NULL test never keeps a row).
type orSelector struct {
	branches [][]branchTest
}

// newOrSelector returns the selection-vector form of an OR whose every branch conjunct has
// one, or nil.
func newOrSelector(c *plan.Call) rowSelector {
	var branches [][]branchTest
	var walk func(e plan.Expr) bool
	walk = func(e plan.Expr) bool {
		if call, ok := e.(*plan.Call); ok && call.Func == "or" {
			for _, a := range call.Args {
				if !walk(a) {
					return false
				}
			}
			return true
		}
		var tests []branchTest
		for _, t := range conjuncts(e) {
			fast, col := constCompare(t)
			var sel rowSelector
			if fast == nil {
				if sel = newRowSelector(t); sel == nil {
					return false
				}
			}
			tests = append(tests, branchTest{fast: fast, col: col, sel: sel})
		}
		branches = append(branches, tests)
		return true
	}
	if c.Func != "or" || !walk(c) || len(branches) < 2 {
		return nil
	}
	return orSelector{branches: branches}
}

func (o orSelector) selectRows(b arrow.RecordBatch, sel []int32, all bool) ([]int32, bool) {
	n := int(b.NumRows())
	var union []int32
	for bi, br := range o.branches {
		var cur []int32
		if !all {
			cur = append([]int32(nil), sel...)
		}
		cur, ok := selectBranch(br, b, cur, all)
		if !ok {
			return nil, false
		}
		if bi == 0 {
			union = cur
			continue
		}
		union = mergeSorted(union, cur)
	}
	if all {
		sel = grow32(sel, n)
	}
	return append(sel[:0], union...), true
}

// selectRows narrows sel by every test of the branch (all: of every row, sel a buffer).
func (br branchTest) selectRows(b arrow.RecordBatch, sel []int32, all bool) ([]int32, bool) {
	if br.fast != nil {
		if br.col >= int(b.NumCols()) {
			return nil, false
		}
		return br.fast.Select(b.Column(br.col), sel, all)
	}
	return br.sel.selectRows(b, sel, all)
}

// selectBranch narrows sel by a branch's tests in order, each on the rows the earlier ones kept.
func selectBranch(br []branchTest, b arrow.RecordBatch, sel []int32, all bool) ([]int32, bool) {
	for _, t := range br {
		if !all && len(sel) == 0 {
			return sel, true
		}
		out, ok := t.selectRows(b, sel, all)
		if !ok {
			return nil, false
		}
		sel, all = out, false
	}
	return sel, true
}

// mergeSorted returns the union of two ascending position lists, in a new slice.
func mergeSorted(x, y []int32) []int32 {
	out := make([]int32, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] < y[j]:
			out = append(out, x[i])
			i++
		case x[i] > y[j]:
			out = append(out, y[j])
			j++
		default:
			out = append(out, x[i])
			i++
			j++
		}
	}
	out = append(out, x[i:]...)
	return append(out, y[j:]...)
}

// grow32 returns s with room for n elements (len 0).
func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, 0, n)
	}
	return s[:0]
}
