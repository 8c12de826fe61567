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
	return nil
}

// consumeFiltered folds the rows of b that pass the fused filter into the groups.
func (a *Aggregate) consumeFiltered(ctx context.Context, b arrow.RecordBatch) error {
	n := int(b.NumRows())
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
	// Evaluation errors surface before any state changes (assignGroups evaluates the keys
	// first; evalInputs runs before fold), so the batch can be retried on the selected rows.
	before := a.nGroups
	groups, err := a.assignGroups(ctx, b, a.incl)
	if err != nil {
		if a.nGroups != before { // failed after adding groups: not an evaluation error
			return err
		}
		return a.consumeTaken(ctx, b, sel)
	}
	in, err := a.evalInputs(ctx, b)
	if err != nil {
		return a.consumeTaken(ctx, b, sel)
	}
	defer in.release()
	return a.fold(in, groups, a.incl)
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
