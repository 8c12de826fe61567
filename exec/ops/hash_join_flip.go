package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/plan"
)

// defaultFlipLimit is the largest left input (rows) a semi or anti join builds its hash
// table on instead of the right input.
const defaultFlipLimit = 1 << 19

// Semi and anti joins with a small left input and a large right one (EXISTS over a fact
// table: TPC-H q04, q21, q22) build the hash table on the left rows and stream the right
// input through it, marking the left rows that match; the left rows are emitted once the
// right input is exhausted (DuckDB's right semi/anti join). Whether the left input is small
// is found at run time: the join reads up to defaultFlipLimit left rows first; if the left input
// ends within them it flips, else the rows read are replayed as the first probe batches.

// canFlip reports whether the join may build on its left input.
func (h *HashJoin) canFlip() bool {
	return h.flipLimit >= 0 && (h.spec.Type == plan.SemiJoin || h.spec.Type == plan.AntiJoin)
}

// tryFlip reads the left input up to h.flipLimit rows. When it ends there, tryFlip builds on
// it and returns true; otherwise it makes h.probe replay the rows read and returns false.
func (h *HashJoin) tryFlip(ctx context.Context) (bool, error) {
	var batches []arrow.RecordBatch
	rows := int64(0)
	for rows <= h.flipLimit {
		b, err := h.left.Next(ctx)
		if err != nil {
			releaseBatches(batches)
			return false, err
		}
		if b == nil {
			return true, h.buildFlipped(ctx, batches, rows)
		}
		if err := h.res.TryGrow(batchBytes(b)); err != nil {
			b.Release()
			releaseBatches(batches)
			return false, err
		}
		rows += b.NumRows()
		batches = append(batches, b)
	}
	h.probe = &replay{batches: batches, rest: h.left}
	return false, nil
}

// buildFlipped builds the hash table on the left batches (consumed) and probes with the
// right input's keys.
func (h *HashJoin) buildFlipped(ctx context.Context, batches []arrow.RecordBatch, rows int64) error {
	b, err := concatBatches(h.left.Schema(), batches, rows, h.env)
	releaseBatches(batches)
	if err != nil {
		return err
	}
	h.core.setBuild(b, h.left.Schema())
	h.core.flipped = true
	h.core.buildMatched = make([]bool, h.core.build.NumRows())
	ht, err := newHashTable(ctx, h.core.build, h.spec.LeftKeys, h.env)
	if err != nil {
		return err
	}
	evals, err := expr.CompileAll(h.spec.RightKeys, h.env.Mem)
	if err != nil {
		releaseArrays(ht.keyCols)
		return err
	}
	h.core.src = &hashSource{evals: evals, ht: ht}
	h.probe = h.right
	if err := h.res.TryGrow(ht.bytes()); err != nil {
		return err
	}
	h.rfRight.publish(ht.keyCols, h.res) // runtime_filter.go: after the table, best effort
	return nil
}

// finishFlipped emits the build (left) rows of a flipped join: the matched ones for a
// semi join, the others for an anti join, the others with NULL right columns for a left
// join. A worker sharing the build emits them only when it is the last to finish.
func (c *joinCore) finishFlipped(ctx context.Context) error {
	matched := c.buildMatched
	if c.mergeMatched != nil {
		merged, last := c.mergeMatched(matched)
		if !last {
			return nil
		}
		matched = merged
	}
	want := c.typ == plan.SemiJoin
	var rows []int32
	for i, m := range matched {
		if m == want {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	b, err := takeRows(ctx, c.env, c.build, rows)
	if err != nil {
		return err
	}
	if c.typ != plan.LeftJoin {
		c.push(b)
		return nil
	}
	defer b.Release()
	rightFields := arrow.NewSchema(c.schema.Fields()[b.NumCols():], nil)
	nulls := nullColumns(c.env, rightFields, len(rows))
	defer releaseArrays(nulls)
	c.push(newBatch(c.schema, append(append([]arrow.Array{}, b.Columns()...), nulls...), int64(len(rows))))
	return nil
}

// replay is an operator that returns some batches already read from rest, then the rest
// of rest. Open and Close do not reach rest (its owner opens and closes it).
type replay struct {
	batches []arrow.RecordBatch
	rest    exec.Operator
	ended   bool // rest has returned its end already
}

func (r *replay) Schema() *arrow.Schema      { return r.rest.Schema() }
func (r *replay) Open(context.Context) error { return nil }
func (r *replay) Close() error               { releaseBatches(r.batches); r.batches = nil; return nil }
func (r *replay) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if len(r.batches) > 0 {
		b := r.batches[0]
		r.batches = r.batches[1:]
		return b, nil
	}
	if r.ended {
		return nil, nil
	}
	return r.rest.Next(ctx)
}
