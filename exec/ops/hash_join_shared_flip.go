package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// A flipped shared build is the hash table on the LEFT input of a semi, anti or left join
// whose left input is small and right input large (TPC-H q04, q21: EXISTS over lineitem;
// q13: customer LEFT JOIN orders). The workers of a parallel pipeline stream the right
// input through it, each marking the left rows it matched in its own flags; the last
// worker to finish ORs every worker's flags together (under the build's mutex) and emits
// the left rows: the matched ones for a semi join, the unmatched ones for an anti join,
// and the unmatched ones padded with NULL right columns for a left join (whose matching
// pairs the workers output as they find them, left columns first).

// FlippedJoinType reports whether joins of type t can build on their left input and be
// probed with their right input: semi, anti and left joins.
func FlippedJoinType(t plan.JoinType) bool {
	return t == plan.SemiJoin || t == plan.AntiJoin || t == plan.LeftJoin
}

// NewFlippedHashBuild returns the build side over left (owned), the left input of a join
// of spec (whose type must satisfy FlippedJoinType), for users joins made with
// NewSharedHashJoin over the right input.
func NewFlippedHashBuild(left exec.Operator, spec JoinSpec, env exec.Env, users int) *HashBuild {
	b := NewHashBuild(left, spec, env, users)
	b.flipped = true
	b.probing = users
	return b
}

// buildKeys are the keys the build input is indexed on.
func (b *HashBuild) buildKeys() []plan.Expr {
	if b.flipped {
		return b.spec.LeftKeys
	}
	return b.spec.RightKeys
}

// finishProbe merges one worker's matched flags (by build row) into the build's; last
// reports that every worker has finished, merged then holding every worker's flags.
func (b *HashBuild) finishProbe(matched []bool) (merged []bool, last bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.matched == nil {
		b.matched = matched
	} else {
		for i, m := range matched {
			if m {
				b.matched[i] = true
			}
		}
	}
	b.probing--
	return b.matched, b.probing == 0
}

// openFlipped opens a join probing a flipped shared build: h.left is the join's right
// input, probed on the right keys.
func (h *HashJoin) openFlipped(ctx context.Context) error {
	core, err := newJoinCore(h.spec, h.rightSchema(), h.left.Schema(), h.env)
	if err != nil {
		return err
	}
	core.flipped = true
	evals, err := expr.CompileAll(h.spec.RightKeys, h.env.Mem)
	if err != nil {
		return err
	}
	core.src = &hashSource{evals: evals}
	h.core = core
	return h.left.Open(ctx)
}

// setFlippedBuild hands a flipped shared build to the core: its matched flags are the
// worker's own, merged at the end (finishFlipped).
func (h *HashJoin) setFlippedBuild(b arrow.RecordBatch) {
	h.core.setBuild(b, h.rightSchema())
	h.core.buildMatched = make([]bool, b.NumRows())
	h.core.mergeMatched = h.shared.finishProbe
}
