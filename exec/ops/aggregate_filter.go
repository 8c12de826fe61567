package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// A fused filter: the aggregate applies its input's WHERE condition itself (the scan below
// it then reads without a filter), so that a batch most of whose rows pass is folded in
// place with an include mask instead of being copied without the rejected rows; a batch few
// of whose rows pass is still taken (copied) first. The group keys and the aggregates'
// inputs are then evaluated on rejected rows too: when that fails, the batch is retried on
// the selected rows only, so an error only a rejected row raises (a division by zero, an
// overflow) never fails the query, as with a separate filter.

// fusedTakeBelow is the selectivity below which a batch's selected rows are taken (copied)
// before aggregation: evaluating the arguments on all rows then costs more than the copy.
const fusedTakeBelow = 0.5

// FusableFilter reports whether an aggregate may apply cond, the WHERE condition of its
// input, itself (Aggregate.SetInputFilter): every conjunct of cond must be safe to evaluate
// on rows the others reject (comparisons of column references and literals, possibly cast
// to floating point), since the fused filter evaluates them all on every row.
func FusableFilter(cond plan.Expr) bool {
	if cond == nil {
		return false
	}
	for _, c := range conjuncts(cond) {
		if !safeConjunct(c) {
			return false
		}
	}
	return true
}

// OwnRecycler hands r, the allocator of the aggregate's input pipeline, to a, which closes it
// after closing the input.
func (a *Aggregate) OwnRecycler(r *Recycler) { a.inputMem = r }

// SetInputFilter makes the aggregate keep only its input rows where cond is TRUE; the caller
// has checked FusableFilter. Call before Open.
func (a *Aggregate) SetInputFilter(cond plan.Expr) { a.preCond = cond }

// compilePre compiles the fused filter's conjuncts.
func (a *Aggregate) compilePre() error {
	if a.preCond == nil {
		return nil
	}
	for _, c := range conjuncts(a.preCond) {
		pc, err := compileConjunct(c, a.evalMem)
		if err != nil {
			return err
		}
		a.pre = append(a.pre, pc)
	}
	var err error
	a.pre, err = mergeRanges(a.pre, a.evalMem)
	return err
}

// consumeFiltered folds the rows of b that pass the fused filter into the groups.
func (a *Aggregate) consumeFiltered(ctx context.Context, b arrow.RecordBatch) error {
	n := int(b.NumRows())
	if incl, kept, ok := a.maskRows(b); ok { // one range test: a mask, no positions
		switch {
		case kept == 0:
			return nil
		case kept == n:
			return a.consumeRows(ctx, b, nil)
		case float64(kept) < fusedTakeBelow*float64(n):
			a.sel = kernel.MaskSel(a.sel, incl)
			return a.consumeTaken(ctx, b, a.sel)
		}
		return a.consumeMasked(ctx, b, incl)
	}
	sel, err := a.selectRows(ctx, b)
	if err != nil {
		return err
	}
	switch {
	case len(sel) == 0:
		return nil
	case len(sel) == n:
		return a.consumeRows(ctx, b, nil)
	case float64(len(sel)) < fusedTakeBelow*float64(n):
		return a.consumeTaken(ctx, b, sel)
	}
	a.incl = kernel.SelMask(a.incl, sel, n)
	return a.consumeMasked(ctx, b, a.incl)
}

// consumeMasked folds the rows of b with incl set into the groups. Evaluation errors
// surface before any state changes (assignGroups evaluates the keys first; evalInputs runs
// before fold), so the batch can be retried on the selected rows only.
func (a *Aggregate) consumeMasked(ctx context.Context, b arrow.RecordBatch, incl []bool) error {
	before := a.nGroups
	groups, err := a.assignGroups(ctx, b, incl)
	if err != nil {
		if a.nGroups != before { // failed after adding groups: not an evaluation error
			return err
		}
		return a.consumeTaken(ctx, b, kernel.MaskSel(nil, incl))
	}
	in, err := a.evalInputs(ctx, b)
	if err != nil {
		return a.consumeTaken(ctx, b, kernel.MaskSel(nil, incl))
	}
	defer in.release()
	return a.fold(in, groups, incl)
}

// maskRows is the fused filter as a mask (in a.incl) with the number of rows kept, when it
// is one range test on an integer or date column without NULLs in b (TPC-H Q1's
// l_shipdate <= date); ok is false otherwise.
func (a *Aggregate) maskRows(b arrow.RecordBatch) (incl []bool, kept int, ok bool) {
	if len(a.pre) != 1 || a.pre[0].fast == nil || a.pre[0].col >= int(b.NumCols()) {
		return nil, 0, false
	}
	incl, kept, ok = a.pre[0].fast.Mask(b.Column(a.pre[0].col), a.incl)
	if ok {
		a.incl = incl
	}
	return incl, kept, ok
}

// consumeTaken folds the rows of b at positions sel into the groups.
func (a *Aggregate) consumeTaken(ctx context.Context, b arrow.RecordBatch, sel []int32) error {
	t, err := takeSel(ctx, a.evalMem, b, sel)
	if err != nil {
		return err
	}
	defer t.Release()
	return a.consumeRows(ctx, t, nil)
}

// selectRows returns the positions of b's rows where every fused conjunct is TRUE, in a
// buffer reused between batches.
func (a *Aggregate) selectRows(ctx context.Context, b arrow.RecordBatch) ([]int32, error) {
	sel, err := selectConjuncts(ctx, a.pre, b, a.sel)
	if err != nil {
		return nil, err
	}
	a.sel = sel
	return sel, nil
}

// andMasks returns the rows set in both x and y (either nil: every row); it writes to
// neither.
func andMasks(x, y []bool) []bool {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	out := make([]bool, len(x))
	for i := range out {
		out[i] = x[i] && y[i]
	}
	return out
}
