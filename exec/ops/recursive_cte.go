package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// MaxRecursion bounds the rounds of a recursive CTE: a query that has not reached its
// fixpoint after this many rounds fails instead of running forever.
const MaxRecursion = 10000

// workingKey is the context key under which a RecursiveCTE hands its working table to the
// WorkingTable operators of the step it runs.
type workingKey struct{ id int64 }

// RecursiveCTE runs WITH RECURSIVE's fixpoint (plan.RecursiveCTE): it streams the anchor's
// rows, then builds and runs the step again and again, each time over the rows the
// previous round produced (read by the step's WorkingTable operators, found through the
// context), until a round produces no row. Without all (UNION) a row already produced is
// dropped, rows comparing as in DISTINCT. After MaxRecursion rounds it fails. The working
// table and the seen rows are held in memory; the seen rows are reserved against the pool.
type RecursiveCTE struct {
	anchor  exec.Operator
	newStep func() (exec.Operator, error)
	all     bool
	id      int64
	schema  *arrow.Schema
	env     exec.Env

	cur     exec.Operator // the anchor or the running step; nil when done
	curCtx  context.Context
	work    []arrow.RecordBatch // the working table the running step reads
	next    []arrow.RecordBatch // the rows of this round: the next working table
	rounds  int
	seen    map[string]struct{}
	buf     []byte
	res     *exec.Reservation
	opened  bool
	running bool // cur is open
}

// NewRecursiveCTE builds the fixpoint of anchor and the steps newStep builds, under id.
func NewRecursiveCTE(anchor exec.Operator, newStep func() (exec.Operator, error), all bool, id int64, schema *arrow.Schema, env exec.Env) *RecursiveCTE {
	env = env.WithDefaults()
	return &RecursiveCTE{anchor: anchor, newStep: newStep, all: all, id: id, schema: schema, env: env,
		seen: map[string]struct{}{}, res: newReservation(env, "recursive CTE")}
}

// Schema implements exec.Operator.
func (r *RecursiveCTE) Schema() *arrow.Schema { return r.schema }

// Open implements exec.Operator.
func (r *RecursiveCTE) Open(ctx context.Context) error {
	r.opened = true
	if err := r.anchor.Open(ctx); err != nil {
		return err
	}
	r.cur, r.curCtx, r.running = r.anchor, ctx, true
	return nil
}

// Next implements exec.Operator.
func (r *RecursiveCTE) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for r.cur != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := r.cur.Next(r.curCtx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			if err := r.nextRound(ctx); err != nil {
				return nil, err
			}
			continue
		}
		out, err := r.keep(ctx, b)
		if err != nil || out == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		out.Retain()
		r.next = append(r.next, out)
		return out, nil
	}
	return nil, nil
}

// keep returns the rows of b (owned) this operator outputs, with its schema; nil when none.
func (r *RecursiveCTE) keep(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	b = withSchema(b, r.schema)
	if b.NumRows() == 0 {
		b.Release()
		return nil, nil
	}
	if r.all {
		return b, nil
	}
	defer b.Release()
	encs := make([]kernel.KeyEncoder, b.NumCols())
	for c, col := range b.Columns() {
		enc, err := kernel.NewKeyEncoder(col)
		if err != nil {
			return nil, err
		}
		encs[c] = enc
	}
	var keep []int32
	var grow int64
	for i := range int(b.NumRows()) {
		r.buf = r.buf[:0]
		for _, enc := range encs {
			r.buf = enc(r.buf, i)
		}
		if _, found := r.seen[string(r.buf)]; !found {
			r.seen[string(r.buf)] = struct{}{}
			grow += int64(len(r.buf)) + mapEntryBytes
			keep = append(keep, int32(i))
		}
	}
	if err := r.res.TryGrow(grow); err != nil || len(keep) == 0 {
		return nil, err
	}
	if len(keep) == int(b.NumRows()) {
		b.Retain()
		return b, nil
	}
	return takeRows(ctx, r.env, b, keep)
}

// nextRound closes the finished round and starts the next one over its rows, or ends.
func (r *RecursiveCTE) nextRound(ctx context.Context) error {
	r.running = false
	if err := r.cur.Close(); err != nil {
		r.cur = nil
		return err
	}
	releaseBatches(r.work)
	r.work, r.next = r.next, nil
	r.cur = nil
	if len(r.work) == 0 {
		return nil
	}
	r.rounds++
	if r.rounds > MaxRecursion {
		return dberr.New(dberr.InvalidInput, "recursive CTE did not reach its fixpoint after %d iterations (the limit)", MaxRecursion)
	}
	step, err := r.newStep()
	if err != nil {
		return err
	}
	stepCtx := context.WithValue(ctx, workingKey{r.id}, r.work)
	if err := step.Open(stepCtx); err != nil {
		_ = step.Close()
		return err
	}
	r.cur, r.curCtx, r.running = step, stepCtx, true
	return nil
}

// Close implements exec.Operator.
func (r *RecursiveCTE) Close() error {
	var err error
	if r.running && r.cur != nil && r.cur != r.anchor {
		err = r.cur.Close()
	}
	if !r.opened || r.cur == r.anchor {
		if e := r.anchor.Close(); err == nil {
			err = e
		}
	}
	releaseBatches(r.work)
	releaseBatches(r.next)
	r.work, r.next, r.cur = nil, nil, nil
	r.res.Free()
	return err
}

// WorkingTable reads the working table of the enclosing RecursiveCTE with the same id,
// which it finds in the context it is opened with.
type WorkingTable struct {
	id     int64
	schema *arrow.Schema
	rows   []arrow.RecordBatch
	pos    int
}

// NewWorkingTable builds the working-table read of recursive CTE id.
func NewWorkingTable(id int64, schema *arrow.Schema) *WorkingTable {
	return &WorkingTable{id: id, schema: schema}
}

// Schema implements exec.Operator.
func (w *WorkingTable) Schema() *arrow.Schema { return w.schema }

// Open implements exec.Operator.
func (w *WorkingTable) Open(ctx context.Context) error {
	rows, ok := ctx.Value(workingKey{w.id}).([]arrow.RecordBatch)
	if !ok {
		return dberr.New(dberr.Internal, "working table %d read outside its recursive CTE", w.id)
	}
	w.rows, w.pos = rows, 0
	return nil
}

// Next implements exec.Operator.
func (w *WorkingTable) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.pos >= len(w.rows) {
		return nil, nil
	}
	b := w.rows[w.pos]
	w.pos++
	b.Retain()
	return withSchema(b, w.schema), nil
}

// Close implements exec.Operator.
func (w *WorkingTable) Close() error { return nil }
