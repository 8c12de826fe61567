package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
)

// NestedLoopJoin joins without equi keys: cross joins and joins on non-equality
// conditions, of every plan.JoinType. It reads its whole right input into memory, then
// evaluates the condition (nil: true) on every (left row, right row) pair, BatchSize pairs
// at a time, streaming the left input. A mark join's mark is the three-valued OR of the
// condition over the right rows. The right input is not reserved against a memory pool.
type NestedLoopJoin struct {
	left, right exec.Operator
	spec        JoinSpec
	env         exec.Env
	core        *joinCore
	built       bool
	res         *exec.Reservation
}

// NewNestedLoopJoin builds a nested-loop join of left and right; spec's keys must be empty.
func NewNestedLoopJoin(left, right exec.Operator, spec JoinSpec, env exec.Env) *NestedLoopJoin {
	env = env.WithDefaults()
	return &NestedLoopJoin{left: left, right: right, spec: spec, env: env, res: newReservation(env, "nested-loop join build")}
}

// Schema implements exec.Operator.
func (j *NestedLoopJoin) Schema() *arrow.Schema { return j.spec.Schema }

// Open implements exec.Operator.
func (j *NestedLoopJoin) Open(ctx context.Context) error {
	if len(j.spec.LeftKeys) != 0 || len(j.spec.RightKeys) != 0 {
		return dberr.New(dberr.Internal, "nested-loop join with equi keys (use a hash join)")
	}
	core, err := newJoinCore(j.spec, j.left.Schema(), j.right.Schema(), j.env)
	if err != nil {
		return err
	}
	j.core = core
	core.src = &loopSource{}
	core.nullCondIsNull = true
	if err := j.left.Open(ctx); err != nil {
		return err
	}
	return j.right.Open(ctx)
}

// Next implements exec.Operator. The first call reads the right input.
func (j *NestedLoopJoin) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !j.built {
		j.built = true
		b, err := drainConcat(ctx, j.right, j.env, j.res)
		if err != nil {
			return nil, err
		}
		j.core.setBuild(b, j.right.Schema())
		j.core.src.(*loopSource).m = int(j.core.build.NumRows())
	}
	return j.core.next(ctx, j.left)
}

// Close implements exec.Operator.
func (j *NestedLoopJoin) Close() error {
	j.res.Free()
	if j.core != nil {
		j.core.close()
	}
	errL := j.left.Close()
	errR := j.right.Close()
	if errL != nil {
		return errL
	}
	return errR
}

// loopSource yields every (left row, right row) pair of a batch, left row major.
type loopSource struct {
	m      int // right rows
	n      int // left rows of the current batch
	li, ri int
}

func (s *loopSource) probe(_ context.Context, b arrow.RecordBatch) error {
	s.n, s.li, s.ri = int(b.NumRows()), 0, 0
	return nil
}

func (s *loopSource) pairs(l, r []int32, limit int) ([]int32, []int32, bool) {
	if s.m == 0 {
		return l, r, true
	}
	for s.li < s.n {
		for s.ri < s.m {
			if len(l) >= limit {
				return l, r, false
			}
			l, r = append(l, int32(s.li)), append(r, int32(s.ri))
			s.ri++
		}
		s.li++
		s.ri = 0
	}
	return l, r, true
}

// nullPairs yields nothing: without keys, NULL comparisons show in the condition.
func (s *loopSource) nullPairs(_ int, l, r []int32, _ int) ([]int32, []int32) { return l, r }

func (s *loopSource) release() {}
