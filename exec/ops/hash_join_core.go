package ops

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// JoinSpec describes one join for HashJoin and NestedLoopJoin (see plan.Join, whose doc
// comment is the contract): the join type, the equi keys (LeftKeys over the left input,
// RightKeys over the right one), the residual condition Cond over the left columns followed
// by the right columns (nil: true) and the output schema.
type JoinSpec struct {
	Type                JoinType
	LeftKeys, RightKeys []plan.Expr
	Cond                plan.Expr
	Schema              *arrow.Schema
}

// JoinType is plan.JoinType, re-exported so that callers of JoinSpec need not import plan.
type JoinType = plan.JoinType

// pairSource generates the candidate (left row, build row) pairs of one probe batch: every
// pair for a nested-loop join, the pairs with equal keys for a hash join.
type pairSource interface {
	// probe starts on a new left batch (which the core keeps alive until the next probe).
	probe(ctx context.Context, b arrow.RecordBatch) error
	// pairs appends at most limit-len(l) more candidate pairs of the current batch to l and
	// r; exhausted reports that the batch has no pairs left.
	pairs(l, r []int32, limit int) (nl, nr []int32, exhausted bool)
	// nullPairs appends (at most limit) build rows whose key comparison with the left row
	// is NULL rather than FALSE, i.e. keys equal except where one side is NULL (mark joins).
	nullPairs(row int, l, r []int32, limit int) ([]int32, []int32)
	// release frees the state of the current batch.
	release()
}

// joinCore is the probe side shared by the join operators: it turns candidate pairs into
// output rows according to the join type, tracks which rows matched, and emits the
// unmatched rows of outer, anti and mark joins. Output batches have at most BatchSize rows.
type joinCore struct {
	typ        plan.JoinType
	env        exec.Env
	schema     *arrow.Schema // output
	pairSchema *arrow.Schema // left fields then right fields
	cond       expr.Evaluator
	// nullCondIsNull makes a pair whose condition is NULL count as a NULL comparison for
	// mark joins (nested-loop joins, where the condition is the comparison). In hash joins
	// only NULL keys do; a NULL residual condition filters the pair out, as a WHERE does.
	nullCondIsNull bool
	build          arrow.RecordBatch // the whole right input (left when flipped)
	src            pairSource
	// flipped: the hash table is on the left input and the right input is probed; pairs
	// are (right row, left row) and the left rows are emitted at the end (semi and anti
	// joins, hash_join_flip.go).
	flipped bool

	buildMatched []bool // right and full joins, flipped joins
	// mergeMatched, for a flipped join sharing its build, merges buildMatched with the
	// other workers' flags; last says this worker emits the build rows.
	mergeMatched func(matched []bool) (merged []bool, last bool)
	cur          arrow.RecordBatch
	matched      []bool // per row of cur: some pair passed
	maybeNull    []bool // per row of cur: some pair compared NULL (mark joins)
	exhausted    bool
	out          []arrow.RecordBatch
	lbuf, rbuf   []int32
}

func newJoinCore(spec JoinSpec, left, right *arrow.Schema, env exec.Env) (*joinCore, error) {
	c := &joinCore{typ: spec.Type, env: env, schema: spec.Schema}
	if c.typ == plan.CrossJoin {
		c.typ = plan.InnerJoin
	}
	switch c.typ {
	case plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin:
		c.pairSchema = spec.Schema
	case plan.SemiJoin, plan.AntiJoin, plan.MarkJoin:
		fields := append(append([]arrow.Field{}, left.Fields()...), right.Fields()...)
		c.pairSchema = arrow.NewSchema(fields, nil)
	default:
		return nil, dberr.NotSupported("join type " + spec.Type.String())
	}
	if spec.Cond != nil {
		ev, err := expr.Compile(spec.Cond, env.Mem)
		if err != nil {
			return nil, err
		}
		c.cond = ev
	}
	return c, nil
}

// emitsPairs reports whether matching pairs are output rows (inner and outer joins).
func (c *joinCore) emitsPairs() bool {
	return c.typ == plan.InnerJoin || c.typ == plan.LeftJoin || c.typ == plan.RightJoin || c.typ == plan.FullJoin
}

// setBuild hands the build side (owned) to the core; nil means an empty build side.
func (c *joinCore) setBuild(b arrow.RecordBatch, right *arrow.Schema) {
	if b == nil {
		b = emptyBatch(right, c.env)
	}
	c.build = b
	if c.typ == plan.RightJoin || c.typ == plan.FullJoin {
		c.buildMatched = make([]bool, b.NumRows())
	}
}

// next returns the next output batch; it pulls left batches from left as needed.
func (c *joinCore) next(ctx context.Context, left exec.Operator) (arrow.RecordBatch, error) {
	for len(c.out) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if c.exhausted {
			return nil, nil
		}
		if c.cur == nil {
			b, err := left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				c.exhausted = true
				if err := c.finishBuild(ctx); err != nil {
					return nil, err
				}
				continue
			}
			if err := c.start(ctx, b); err != nil {
				return nil, err
			}
			continue
		}
		if err := c.step(ctx); err != nil {
			return nil, err
		}
	}
	b := c.out[0]
	c.out = c.out[1:]
	return b, nil
}

// start begins probing left batch b (owned).
func (c *joinCore) start(ctx context.Context, b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		b.Release()
		return nil
	}
	c.cur = b
	n := int(b.NumRows())
	c.matched = resetBools(c.matched, n)
	c.maybeNull = resetBools(c.maybeNull, n)
	return c.src.probe(ctx, b)
}

func resetBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// step processes the next chunk of candidate pairs of the current left batch.
func (c *joinCore) step(ctx context.Context) error {
	l, r, done := c.src.pairs(c.lbuf[:0], c.rbuf[:0], c.env.BatchSize)
	c.lbuf, c.rbuf = l, r
	if len(l) > 0 {
		if err := c.evalPairs(ctx, l, r, false); err != nil {
			return err
		}
	}
	if !done {
		return nil
	}
	err := c.finishBatch(ctx)
	c.src.release()
	c.cur.Release()
	c.cur = nil
	return err
}

// evalPairs evaluates the condition on candidate pairs. For real candidates (nullCheck
// false) a TRUE pair marks both rows matched and, for inner and outer joins, is output; a
// NULL pair marks the left row maybeNull when nullCondIsNull. For mark joins' NULL-key
// candidates (nullCheck true), a pair whose condition is TRUE marks the left row maybeNull.
func (c *joinCore) evalPairs(ctx context.Context, l, r []int32, nullCheck bool) error {
	emit := c.emitsPairs() && !nullCheck
	if c.cond == nil && !emit {
		for k, li := range l {
			c.record(li, r[k], nullCheck)
		}
		return nil
	}
	pb, err := c.pairBatch(ctx, l, r)
	if err != nil {
		return err
	}
	defer pb.Release()
	if c.cond == nil {
		for k, li := range l {
			c.record(li, r[k], false)
		}
		pb.Retain()
		c.push(pb)
		return nil
	}
	res, err := c.cond.Eval(ctx, pb)
	if err != nil {
		return err
	}
	defer res.Release()
	return c.applyCond(ctx, pb, res, l, r, nullCheck, emit)
}

func (c *joinCore) applyCond(ctx context.Context, pb arrow.RecordBatch, res arrow.Array, l, r []int32, nullCheck, emit bool) error {
	bools, _ := res.(*array.Boolean)
	if bools == nil && res.DataType().ID() != arrow.NULL {
		return dberr.New(dberr.Internal, "join condition has type %s, want boolean", res.DataType())
	}
	keep := make([]int32, 0, len(l))
	for k, li := range l {
		switch {
		case !kernel.IsValid(res, k):
			if c.nullCondIsNull && !nullCheck {
				c.maybeNull[li] = true
			}
		case nullCheck && bools.Value(k):
			c.maybeNull[li] = true
		case bools.Value(k):
			c.record(li, r[k], false)
			keep = append(keep, int32(k))
		}
	}
	if !emit || len(keep) == 0 {
		return nil
	}
	if len(keep) == len(l) {
		pb.Retain()
		c.push(pb)
		return nil
	}
	sel, err := takeRows(ctx, c.env, pb, keep)
	if err != nil {
		return err
	}
	c.push(sel)
	return nil
}

// record notes one passing pair (or, for NULL-key candidates, a NULL comparison).
func (c *joinCore) record(li, ri int32, nullCheck bool) {
	if nullCheck {
		c.maybeNull[li] = true
		return
	}
	c.matched[li] = true
	if c.buildMatched != nil {
		c.buildMatched[ri] = true
	}
}

// pairBatch materializes the pairs as a batch of the left columns then the right columns.
func (c *joinCore) pairBatch(ctx context.Context, l, r []int32) (arrow.RecordBatch, error) {
	lb, err := takeRows(ctx, c.env, c.cur, l)
	if err != nil {
		return nil, err
	}
	defer lb.Release()
	rb, err := takeRows(ctx, c.env, c.build, r)
	if err != nil {
		return nil, err
	}
	defer rb.Release()
	cols := append(append([]arrow.Array{}, lb.Columns()...), rb.Columns()...)
	if c.flipped {
		cols = append(append(cols[:0], rb.Columns()...), lb.Columns()...)
	}
	return newBatch(c.pairSchema, cols, int64(len(l))), nil
}

// takeRows returns the rows of b at the positions rows: a zero-copy slice of b when they
// are consecutive (a probe batch whose every row matched one build row, as after an exact
// run-time filter on a key join: TPC-H q09's lineitem through four joins) and cover at
// least half of b, else a copy. A slice holds all of b's buffers and operators that reserve
// their input count them whole, so a short slice of a large build batch would be charged
// far more than its rows.
func takeRows(ctx context.Context, env exec.Env, b arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	if 2*int64(len(rows)) >= b.NumRows() && consecutive(rows) && int64(rows[len(rows)-1]) < b.NumRows() {
		return b.NewSlice(int64(rows[0]), int64(rows[0])+int64(len(rows))), nil
	}
	return takeSel(ctx, env.Mem, b, rows)
}

// consecutive reports whether rows is a non-empty run r, r+1, r+2, ...
func consecutive(rows []int32) bool {
	if len(rows) == 0 || rows[0] < 0 || int(rows[len(rows)-1]-rows[0]) != len(rows)-1 {
		return false
	}
	for i, r := range rows {
		if r != rows[0]+int32(i) {
			return false
		}
	}
	return true
}

// push queues an output batch (owned), split to the batch size; empty batches are dropped.
func (c *joinCore) push(b arrow.RecordBatch) {
	if b.NumRows() == 0 {
		b.Release()
		return
	}
	s := splitter{size: int64(c.env.BatchSize)}
	s.push(b)
	for out := s.next(); out != nil; out = s.next() {
		c.out = append(c.out, withSchema(out, c.schema))
	}
}

// finishBatch emits what the current left batch contributes beyond its matching pairs.
func (c *joinCore) finishBatch(ctx context.Context) error {
	if c.flipped {
		return nil
	}
	switch c.typ {
	case plan.LeftJoin, plan.FullJoin:
		return c.emitLeftRows(ctx, false, true)
	case plan.SemiJoin:
		return c.emitLeftRows(ctx, true, false)
	case plan.AntiJoin:
		return c.emitLeftRows(ctx, false, false)
	case plan.MarkJoin:
		return c.emitMark(ctx)
	}
	return nil
}

// emitLeftRows outputs the rows of the current batch whose matched flag equals want,
// followed by NULL right columns when padRight.
func (c *joinCore) emitLeftRows(ctx context.Context, want, padRight bool) error {
	var rows []int32
	for i, m := range c.matched {
		if m == want {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	lb, err := takeRows(ctx, c.env, c.cur, rows)
	if err != nil {
		return err
	}
	if !padRight {
		c.push(lb)
		return nil
	}
	defer lb.Release()
	cols := append([]arrow.Array{}, lb.Columns()...)
	nulls := nullColumns(c.env, c.build.Schema(), len(rows))
	defer releaseArrays(nulls)
	c.push(newBatch(c.schema, append(cols, nulls...), int64(len(rows))))
	return nil
}

// emitMark outputs every row of the current batch with its mark: TRUE when a pair matched,
// NULL when none matched but a comparison was NULL, FALSE otherwise.
func (c *joinCore) emitMark(ctx context.Context) error {
	if err := c.checkNullKeys(ctx); err != nil {
		return err
	}
	n := len(c.matched)
	mark := kernel.NewBools(c.env.Mem, n)
	for i := range n {
		switch {
		case c.matched[i]:
			mark.Set(i, true)
		case c.maybeNull[i]:
			mark.SetNull(i)
		}
	}
	m := mark.Finish()
	defer m.Release()
	cols := append(append([]arrow.Array{}, c.cur.Columns()...), m)
	c.push(newBatch(c.schema, cols, int64(n)))
	return nil
}

// checkNullKeys finds, for the unmatched rows of a mark join, build rows whose key
// comparison is NULL and whose condition is not FALSE.
func (c *joinCore) checkNullKeys(ctx context.Context) error {
	limit := math.MaxInt32 // every candidate: the condition decides
	if c.cond == nil {
		limit = 1 // one NULL comparison settles the row
	}
	l, r := c.lbuf[:0], c.rbuf[:0]
	for i, m := range c.matched {
		if m || c.maybeNull[i] {
			continue
		}
		start := len(l)
		l, r = c.src.nullPairs(i, l, r, start+limit)
		if len(l) >= c.env.BatchSize {
			if err := c.evalPairs(ctx, l, r, true); err != nil {
				return err
			}
			l, r = l[:0], r[:0]
		}
	}
	c.lbuf, c.rbuf = l, r
	if len(l) == 0 {
		return nil
	}
	return c.evalPairs(ctx, l, r, true)
}

// finishBuild emits the unmatched build rows of right and full joins, with NULL left
// columns, once the left input is exhausted.
func (c *joinCore) finishBuild(ctx context.Context) error {
	if c.flipped {
		return c.finishFlipped(ctx)
	}
	if c.buildMatched == nil {
		return nil
	}
	var rows []int32
	for i, m := range c.buildMatched {
		if !m {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	rb, err := takeRows(ctx, c.env, c.build, rows)
	if err != nil {
		return err
	}
	defer rb.Release()
	nLeft := c.schema.NumFields() - int(rb.NumCols())
	leftFields := arrow.NewSchema(c.schema.Fields()[:nLeft], nil)
	nulls := nullColumns(c.env, leftFields, len(rows))
	defer releaseArrays(nulls)
	c.push(newBatch(c.schema, append(nulls, rb.Columns()...), int64(len(rows))))
	return nil
}

// emptyBatch returns a batch of schema s without rows.
func emptyBatch(s *arrow.Schema, env exec.Env) arrow.RecordBatch {
	return newBatchOwned(s, nullColumns(env, s, 0), 0)
}

// nullColumns returns one all-NULL column of n rows per field of s.
func nullColumns(env exec.Env, s *arrow.Schema, n int) []arrow.Array {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = kernel.ArrayOfNull(env.Mem, f.Type, n)
	}
	return cols
}

// close releases everything the core holds.
func (c *joinCore) close() {
	if c.cur != nil {
		c.src.release()
		c.cur.Release()
		c.cur = nil
	}
	if c.build != nil {
		c.build.Release()
		c.build = nil
	}
	releaseBatches(c.out)
	c.out = nil
}
