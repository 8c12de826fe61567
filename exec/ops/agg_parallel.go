package ops

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// ParallelAggregate is the morsel-parallel form of Aggregate. Each input is one worker's
// pipeline (typically a scan sharing a morsel queue with the others, then filters and
// projections; see NewSharedScans); each worker folds its input into a partial aggregate of
// its own on its own goroutine. When all are done the partials are merged, in worker order,
// into a final state: groups are matched by their keys (integer keys in the typed table,
// aggregate_ints.go, others encoded), accumulator states are combined, and DISTINCT
// aggregates replay the values each worker saw first through the final DISTINCT sets, so
// every value counts once. The aggregates must satisfy CanCombine.
//
// Workers stop at the first error or when the context is cancelled; Close releases every
// partial state, and no goroutine outlives Next.
type ParallelAggregate struct {
	inputMem *Recycler // closed after the workers (OwnRecycler); may be nil
	workers  []*Aggregate
	final    *Aggregate
	schema   *arrow.Schema
	done     bool
	out      splitter
}

// NewParallelAggregate builds a parallel aggregate with one worker per input. It owns the
// inputs.
func NewParallelAggregate(inputs []exec.Operator, groupBy []plan.Expr, aggs []plan.AggCall, schema *arrow.Schema, env exec.Env) *ParallelAggregate {
	env = env.WithDefaults()
	p := &ParallelAggregate{schema: schema, out: splitter{size: int64(env.BatchSize)},
		final: NewAggregate(nil, groupBy, aggs, schema, env)}
	for _, in := range inputs {
		w := NewAggregate(in, groupBy, aggs, schema, env)
		w.partial = true
		p.workers = append(p.workers, w)
	}
	return p
}

// SetInputFilter makes every worker keep only its input rows where cond is TRUE
// (Aggregate.SetInputFilter); the caller has checked FusableFilter. Call before Open.
func (p *ParallelAggregate) SetInputFilter(cond plan.Expr) {
	for _, w := range p.workers {
		w.SetInputFilter(cond)
	}
}

// OwnRecycler hands r, the allocator of the workers' input pipelines, to p, which closes it
// after closing them.
func (p *ParallelAggregate) OwnRecycler(r *Recycler) { p.inputMem = r }

// Schema implements exec.Operator.
func (p *ParallelAggregate) Schema() *arrow.Schema { return p.schema }

// Open implements exec.Operator: it opens every worker's pipeline.
func (p *ParallelAggregate) Open(ctx context.Context) error {
	if !CanCombine(p.final.aggs) {
		return dberr.New(dberr.Internal, "parallel aggregate over aggregates without a merge")
	}
	if err := p.final.init(); err != nil {
		return err
	}
	for _, w := range p.workers {
		if err := w.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Next implements exec.Operator. The first call runs the workers to the end and merges.
func (p *ParallelAggregate) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !p.done {
		p.done = true
		g, gctx := errgroup.WithContext(ctx)
		for _, w := range p.workers {
			g.Go(func() error { return w.consumeAll(gctx) })
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for _, w := range p.workers {
			if err := p.final.mergeFrom(ctx, w); err != nil {
				return nil, err
			}
			if err := w.Close(); err != nil { // frees the partial state early
				return nil, err
			}
		}
		res, err := p.final.result(ctx)
		if err != nil {
			return nil, err
		}
		p.out.push(res)
	}
	return p.out.next(), nil
}

// Close implements exec.Operator.
func (p *ParallelAggregate) Close() error {
	var first error
	for _, w := range p.workers {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := p.final.Close(); err != nil && first == nil {
		first = err
	}
	if p.inputMem != nil {
		p.inputMem.Close()
	}
	p.out.release()
	return first
}

// distinctChunk is what a partial aggregate keeps for a DISTINCT aggregate from one batch:
// the argument values it saw first and their (worker-local) groups.
type distinctChunk struct {
	arg    arrow.Array
	groups []int32
}

// keepDistinct keeps the rows of arg selected by include (partial mode).
func (a *Aggregate) keepDistinct(i int, arg arrow.Array, groups []int32, include []bool) error {
	var rows, gs []int32
	for r, ok := range include {
		if ok {
			rows = append(rows, int32(r))
			gs = append(gs, groups[r])
		}
	}
	if len(rows) == 0 {
		return nil
	}
	bld := array.NewInt32Builder(a.env.Mem)
	bld.AppendValues(rows, nil)
	idx := bld.NewArray()
	bld.Release()
	defer idx.Release()
	t, err := compute.TakeArray(compute.WithAllocator(context.Background(), a.env.Mem), arg, idx)
	if err != nil {
		return dberr.Wrap(dberr.Internal, err, "aggregate: keep distinct values")
	}
	a.distinct[i] = append(a.distinct[i], distinctChunk{arg: t, groups: gs})
	a.newBytes += dataBytes(t.Data()) + 4*int64(len(gs))
	return nil
}

// mergeFrom folds the partial state of worker w into a.
func (a *Aggregate) mergeFrom(ctx context.Context, w *Aggregate) error {
	if w.accs == nil { // never opened
		return nil
	}
	mapping, err := a.mapGroups(ctx, w)
	if err != nil {
		return err
	}
	for i := range a.aggs {
		if a.seen[i] != nil {
			if err := a.replayDistinct(i, w.distinct[i], mapping); err != nil {
				return err
			}
			continue
		}
		c, ok := a.accs[i].(combiner)
		if !ok {
			return dberr.New(dberr.Internal, "aggregate %s has no merge", a.aggs[i].Func)
		}
		if err := c.combine(w.accs[i], mapping); err != nil {
			return err
		}
	}
	grown := a.newBytes
	a.newBytes = 0
	return a.res.TryGrow(grown)
}

// replayDistinct feeds a worker's first-seen DISTINCT values to aggregate i, keeping only the
// (group, value) pairs that are new here too.
func (a *Aggregate) replayDistinct(i int, chunks []distinctChunk, mapping []int32) error {
	for _, c := range chunks {
		groups := make([]int32, len(c.groups))
		for r, g := range c.groups {
			groups[r] = mapping[g]
		}
		include, err := a.firstSeen(i, c.arg, groups, nil, keepsNulls(a.aggs[i].Func))
		if err != nil {
			return err
		}
		if err := a.accs[i].update(groups, c.arg, include); err != nil {
			return err
		}
	}
	return nil
}

// mapGroups returns, for every group of w, the group of a with the same key, creating the
// groups a does not have yet (in w's group order).
func (a *Aggregate) mapGroups(ctx context.Context, w *Aggregate) ([]int32, error) {
	if len(a.groupBy) == 0 {
		return []int32{0}, nil
	}
	if (a.ints == nil) != (w.ints == nil) { // one fell back to the general map: both do
		if err := a.dropIntKeys(); err != nil {
			return nil, err
		}
		if err := w.dropIntKeys(); err != nil {
			return nil, err
		}
	}
	if a.nGroups == 0 {
		return a.adoptGroups(w), nil
	}
	var mapping, newRows []int32
	var err error
	if a.ints != nil {
		mapping, newRows, err = a.mapIntGroups(w) // aggregate_ints.go
	} else {
		mapping, newRows = a.mapKeyGroups(w)
	}
	if err != nil || len(newRows) == 0 {
		return mapping, err
	}
	a.addGroups(len(newRows))
	cols := make([]arrow.Array, 0, len(w.keyChunks))
	defer func() { releaseArrays(cols) }()
	for c, chunks := range w.keyChunks {
		col, err := a.concatKeys(chunks, a.schema.Field(c).Type)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return mapping, a.keepKeys(ctx, cols, newRows)
}

// mapKeyGroups is mapGroups through the general map: it returns the groups in a of w's
// groups, adding the new ones, and the groups of w that are new here.
func (a *Aggregate) mapKeyGroups(w *Aggregate) ([]int32, []int32) {
	keys := make([]string, w.nGroups)
	for k, g := range w.groups {
		keys[g] = k
	}
	mapping := make([]int32, w.nGroups)
	var newRows []int32
	for g, k := range keys {
		dg, ok := a.groups[k]
		if !ok {
			dg = int32(a.nGroups + len(newRows))
			a.groups[k] = dg
			newRows = append(newRows, int32(g))
			a.newBytes += int64(len(k)) + mapEntryBytes + aggStateBytes*int64(len(a.aggs))
		}
		mapping[g] = dg
	}
	return mapping, newRows
}

// adoptGroups takes over the groups of w, merged first into this empty final state: its key
// map and saved key columns move over as they are (no lookups, no copies), and the mapping
// is the identity. The key columns were allocated from the same allocator (the operators
// share their env).
func (a *Aggregate) adoptGroups(w *Aggregate) []int32 {
	a.groups, w.groups = w.groups, map[string]int32{}
	mapping := make([]int32, w.nGroups)
	for g := range mapping {
		mapping[g] = int32(g)
	}
	for k := range a.groups {
		a.newBytes += int64(len(k)) + mapEntryBytes + aggStateBytes*int64(len(a.aggs))
	}
	if w.ints != nil { // its table moves too; w's reservation of it is freed with w
		a.res.Shrink(a.ints.tableBytes())
		a.ints, w.ints = w.ints, nil
		a.ints.res = a.res
		a.newBytes += a.ints.tableBytes() + int64(w.nGroups)*(a.ints.groupBytes()+aggStateBytes*int64(len(a.aggs)))
	}
	a.addGroups(w.nGroups)
	for c, chunks := range w.keyChunks {
		a.keyChunks[c], w.keyChunks[c] = append(a.keyChunks[c], chunks...), nil
	}
	return mapping
}
