package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// TopN is ORDER BY … LIMIT count OFFSET offset without sorting the whole input: it keeps
// at most the first offset+count rows in key order. Input batches are buffered; whenever
// the buffer holds more than max(2×(offset+count), BatchSize) rows it is compacted: the
// buffer is sorted stably and cut to its first offset+count rows. Survivors stay ahead of
// later rows in the buffer, so ties come out in input order, exactly as Sort followed by
// Limit gives them. After the first compaction the last kept row is a boundary: rows of
// later batches that do not sort strictly before it are dropped before buffering
// (topn_boundary.go), so most of a large input is only compared once. Memory is bounded by
// the buffer (reserved against the query's pool), not by the input. (This is the "sort
// small candidate sets, cut, and filter by the boundary" form of TopN rather than a per-row
// heap: Sort's row comparison is reused batch-at-a-time.)
type TopN struct {
	input  exec.Operator
	sorter Sort // compiled keys and the stable sort
	offset int64
	keep   int64 // offset + count
	env    exec.Env

	buf      []arrow.RecordBatch
	bufRows  int64
	boundary []arrow.Array // sort keys of the worst row that can still be output; nil: none yet
	res      *exec.Reservation
	out      splitter
	done     bool
}

// NewTopN builds a TopN over input: the rows at positions [offset, offset+count) of the
// input stably sorted by keys. count must be non-negative.
func NewTopN(input exec.Operator, keys []plan.SortKey, offset, count int64, env exec.Env) *TopN {
	env = env.WithDefaults()
	offset = max(offset, 0)
	return &TopN{input: input, sorter: Sort{input: input, keys: keys, env: env}, offset: offset,
		keep: offset + max(count, 0), env: env, res: newReservation(env, "top-n"),
		out: splitter{size: int64(env.BatchSize)}}
}

// Schema implements exec.Operator.
func (t *TopN) Schema() *arrow.Schema { return t.input.Schema() }

// Open implements exec.Operator.
func (t *TopN) Open(ctx context.Context) error { return t.sorter.Open(ctx) }

// Next implements exec.Operator. The first call consumes the whole input.
func (t *TopN) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !t.done {
		t.done = true
		if err := t.consumeAll(ctx); err != nil {
			return nil, err
		}
		if err := t.compact(ctx); err != nil {
			return nil, err
		}
		if len(t.buf) == 1 && t.bufRows > t.offset {
			t.out.push(t.buf[0].NewSlice(t.offset, t.bufRows))
		}
		releaseBatches(t.buf)
		t.buf, t.bufRows = nil, 0
	}
	return t.out.next(), nil
}

func (t *TopN) consumeAll(ctx context.Context) error {
	limit := max(2*t.keep, int64(t.env.BatchSize))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := t.input.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		if b.NumRows() == 0 || t.keep == 0 {
			b.Release()
			continue
		}
		kept, err := t.beforeBoundary(ctx, b)
		b.Release()
		if err != nil || kept == nil {
			if err != nil {
				return err
			}
			continue
		}
		b = kept
		if err := t.res.TryGrow(batchBytes(b)); err != nil {
			b.Release()
			return err
		}
		t.buf = append(t.buf, b)
		t.bufRows += b.NumRows()
		if t.bufRows > limit {
			if err := t.compact(ctx); err != nil {
				return err
			}
		}
	}
}

// compact replaces the buffer by its first keep rows in key order (one batch).
func (t *TopN) compact(ctx context.Context) error {
	all, err := concatBatches(t.input.Schema(), t.buf, t.bufRows, t.env)
	if err != nil || all == nil {
		return err
	}
	defer all.Release()
	top, err := t.sorter.sortPrefix(ctx, all, t.keep)
	if err != nil {
		return err
	}
	releaseBatches(t.buf)
	t.buf, t.bufRows = []arrow.RecordBatch{top}, top.NumRows()
	t.res.Free()
	t.res.Grow(batchBytes(top)) // already allocated: account it even over the limit
	return t.setBoundary(ctx, top)
}

// Close implements exec.Operator.
func (t *TopN) Close() error {
	releaseBatches(t.buf)
	t.buf = nil
	releaseArrays(t.boundary)
	t.boundary = nil
	t.out.release()
	t.res.Free()
	return t.input.Close()
}
