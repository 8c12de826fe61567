package ops

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// Scan reads a table snapshot morsel by morsel, applies the scan's filter and limit, and
// outputs batches of at most Env.BatchSize rows in table (morsel) order. With a plan.Shard it
// reads only the shard's morsels.
//
// With Env.Parallelism > 1 morsels are read by a bounded pool of workers (an errgroup with
// SetLimit). A worker reads a morsel, filters it, and streams its batches into a slot of
// its own (a channel of slotBatches batches); Next consumes the slots in morsel order, which
// is the reorder buffer, so the first batch goes out as soon as it is decoded. At most
// 2×Parallelism morsels are launched and not consumed, and a worker whose slot is full
// waits, so memory stays bounded when the consumer is slow. Close cancels the workers and
// waits for them, so no goroutine outlives it.
type Scan struct {
	table  catalog.Table
	req    catalog.ScanRequest
	shard  plan.Shard
	schema *arrow.Schema
	filter plan.Expr
	limit  int64
	env    exec.Env

	pred    *predicate
	late    *lateFilter // late materialization (scan_late.go); nil if none
	morsels []catalog.Morsel
	emitted int64 // rows returned so far
	done    bool
	out     splitter

	// sequential mode
	next   int // next morsel to open
	reader catalog.RecordReader
	shared *morselQueue // set on the scans of NewSharedScans: morsels come from it
	rfs    []*rfTarget  // run-time join filters, applied before filter (runtime_filter_scan.go)

	bytesRead atomic.Int64 // from the closed readers' catalog.ScanStats
	bytesHit  atomic.Int64 // from the closed readers' catalog.CacheStats

	// parallel mode; ctx is stored between Open and Close for the workers
	cancel   context.CancelFunc
	wctx     context.Context
	group    *errgroup.Group
	slots    []chan morselResult
	launched int
	consumed int
}

// slotBatches is how many decoded batches a parallel scan worker may have waiting.
const slotBatches = 4

// morselResult is one item of a worker's slot: a batch or the error that ended the morsel.
// The worker closes the slot after its last item.
type morselResult struct {
	batch arrow.RecordBatch
	err   error
}

// NewScan builds the scan operator for n.
func NewScan(n *plan.Scan, env exec.Env) *Scan {
	env = env.WithDefaults()
	req := catalog.ScanRequest{Columns: n.Columns, Limit: -1, Index: n.Index, RowID: n.RowID, RowAddr: n.RowAddr}
	if n.Filter == nil && n.Limit >= 0 {
		req.Limit = n.Limit
	}
	return &Scan{table: n.Table, req: req, shard: n.Shard, schema: n.Schema(), filter: n.Filter, limit: n.Limit, env: env,
		out: splitter{size: int64(env.BatchSize)}}
}

// Schema implements exec.Operator.
func (s *Scan) Schema() *arrow.Schema { return s.schema }

// Open implements exec.Operator: it compiles the filter and lists the morsels.
func (s *Scan) Open(ctx context.Context) error {
	pred, err := newPredicate(s.filter, s.env.Mem)
	if err != nil {
		return err
	}
	s.pred = pred
	if s.late, err = s.newLateFilter(); err != nil {
		return err
	}
	if s.late != nil {
		s.req.Prefilter = s.late.pre
	}
	if s.limit == 0 {
		s.done = true
		return nil
	}
	if s.shared != nil {
		return s.shared.list(ctx, s)
	}
	ms, err := s.table.Morsels(ctx, s.req)
	if err != nil {
		return fmt.Errorf("scan %s: list morsels: %w", s.table.Name(), err)
	}
	s.morsels = s.keepShard(ms)
	if s.env.Parallelism > 1 && s.req.Index == nil {
		s.morsels = splitMorsels(s.morsels, slotBatches*int64(s.env.BatchSize))
	}
	if s.env.Parallelism > 1 && len(s.morsels) > 1 {
		s.wctx, s.cancel = context.WithCancel(ctx)
		s.group = &errgroup.Group{}
		s.group.SetLimit(s.env.Parallelism)
		s.slots = make([]chan morselResult, len(s.morsels))
	}
	return nil
}

// splitMorsels cuts each morsel into ranges of about rows rows (at most maxSplit of them,
// longer if the morsel is longer). Next consumes the workers' output in morsel order, so a
// worker ahead of the consumer can only fill its slot and wait: with the catalog's morsels
// (a whole Lance fragment, 1Mi rows, 64 batches) one worker decoded while the others sat on
// full slots, and a scan read about as fast as one core could decode. Ranges of one slot's
// worth of batches keep every worker busy while the consumer keeps up. (Index scans keep
// the catalog's morsels: they are shaped by the rows the index selected.)
func splitMorsels(ms []catalog.Morsel, rows int64) []catalog.Morsel {
	if rows <= 0 {
		return ms
	}
	out := make([]catalog.Morsel, 0, len(ms))
	for _, m := range ms {
		n := m.End - m.Start
		pieces := min(maxSplit, (n+rows-1)/rows)
		if pieces <= 1 {
			out = append(out, m)
			continue
		}
		step := (n + pieces - 1) / pieces
		for start := m.Start; start < m.End; start += step {
			out = append(out, catalog.Morsel{Fragment: m.Fragment, Start: start, End: min(start+step, m.End)})
		}
	}
	return out
}

// maxSplit bounds the ranges splitMorsels makes of one morsel.
const maxSplit = 64

// keepShard returns the morsels of the scan's shard (position i in the table's list kept
// when Shard.Keeps(i)).
func (s *Scan) keepShard(ms []catalog.Morsel) []catalog.Morsel {
	if s.shard.Count <= 1 {
		return ms
	}
	var out []catalog.Morsel
	for i, m := range ms {
		if s.shard.Keeps(i) {
			out = append(out, m)
		}
	}
	return out
}

// Next implements exec.Operator.
func (s *Scan) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b := s.out.next(); b != nil {
			return s.emit(b), nil
		}
		if s.done {
			return nil, nil
		}
		b, err := s.fetch(ctx)
		if err != nil || b == nil {
			s.done = b == nil && err == nil
			return nil, err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		s.out.push(withSchema(b, s.schema))
	}
}

// emit applies the limit to b.
func (s *Scan) emit(b arrow.RecordBatch) arrow.RecordBatch {
	if s.limit >= 0 && s.emitted+b.NumRows() >= s.limit {
		s.done = true
		s.out.release()
		if s.emitted+b.NumRows() > s.limit {
			cut := b.NewSlice(0, s.limit-s.emitted)
			b.Release()
			b = cut
		}
	}
	s.emitted += b.NumRows()
	return b
}

// fetch returns the next filtered batch from the morsels, or nil at the end.
func (s *Scan) fetch(ctx context.Context) (arrow.RecordBatch, error) {
	if s.group != nil {
		return s.fetchParallel(ctx)
	}
	for {
		if s.reader == nil {
			m, i, ok := s.nextMorsel()
			if !ok {
				return nil, nil
			}
			rd, err := s.table.Scan(ctx, s.req, m, s.env.Mem)
			if err != nil {
				return nil, fmt.Errorf("scan %s morsel %d: %w", s.table.Name(), i, err)
			}
			s.reader = rd
		}
		b, err := s.reader.Next(ctx)
		if err != nil {
			return nil, filterOwnError(err, "scan %s", s.table.Name())
		}
		if b == nil {
			s.countRead(s.reader)
			err := s.reader.Close()
			s.reader = nil
			if err != nil {
				return nil, fmt.Errorf("scan %s: close reader: %w", s.table.Name(), err)
			}
			continue
		}
		return s.filterBatch(ctx, b, s.reader)
	}
}

// filterBatch applies to b, a batch of rd, what rd has not applied of the run-time filters
// and the filter.
func (s *Scan) filterBatch(ctx context.Context, b arrow.RecordBatch, rd catalog.RecordReader) (arrow.RecordBatch, error) {
	rfs, pred := s.filterFor(rd) // scan_late.go
	if rfs {
		var err error
		if b, err = s.applyRuntimeFilters(ctx, b); err != nil {
			return nil, err
		}
	}
	if pred == nil {
		return b, nil
	}
	return pred.applyPooled(ctx, b) // scan_filter.go
}

// fetchParallel returns the next batch in morsel order from the workers' slots.
func (s *Scan) fetchParallel(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.consumed == len(s.morsels) {
			return nil, nil
		}
		s.launch()
		var r morselResult
		var ok bool
		select {
		case r, ok = <-s.slots[s.consumed]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if !ok {
			s.slots[s.consumed] = nil
			s.consumed++
			continue
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.batch, nil
	}
}

// launch starts workers for the morsels after the last launched one, keeping at most
// 2×Parallelism morsels launched but not consumed. It never waits for a pool slot while
// the morsel being consumed is launched (its worker may be waiting for this consumer);
// when nothing unconsumed is launched, the busy workers have all finished their morsels
// and are about to free their pool slots, so waiting for one is safe.
func (s *Scan) launch() {
	window := 2 * s.env.Parallelism
	for s.launched < len(s.morsels) && s.launched-s.consumed < window {
		i := s.launched
		slot := make(chan morselResult, slotBatches)
		run := func() error {
			defer close(slot)
			s.readMorsel(s.wctx, i, slot)
			return nil
		}
		if s.launched > s.consumed {
			if !s.group.TryGo(run) {
				return
			}
		} else {
			s.group.Go(run)
		}
		s.slots[i] = slot
		s.launched++
	}
}

// readMorsel reads and filters one morsel, sending each batch (or the error that stops it)
// to slot. It gives up, releasing what it holds, when ctx is cancelled.
func (s *Scan) readMorsel(ctx context.Context, i int, slot chan<- morselResult) {
	send := func(r morselResult) bool {
		select {
		case slot <- r:
			return true
		case <-ctx.Done():
			if r.batch != nil {
				r.batch.Release()
			}
			return false
		}
	}
	rd, err := s.table.Scan(ctx, s.req, s.morsels[i], s.env.Mem)
	if err != nil {
		send(morselResult{err: fmt.Errorf("scan %s morsel %d: %w", s.table.Name(), i, err)})
		return
	}
	defer func() {
		s.countRead(rd)
		if err := rd.Close(); err != nil {
			send(morselResult{err: fmt.Errorf("scan %s: close reader: %w", s.table.Name(), err)})
		}
	}()
	for {
		b, err := rd.Next(ctx)
		if err != nil {
			send(morselResult{err: filterOwnError(err, "scan %s morsel %d", s.table.Name(), i)})
			return
		}
		if b == nil {
			return
		}
		f, err := s.filterBatch(ctx, b, rd)
		if err != nil {
			send(morselResult{err: err})
			return
		}
		if f.NumRows() == 0 {
			f.Release()
			continue
		}
		if !send(morselResult{batch: f}) {
			return
		}
	}
}

// Close implements exec.Operator. It stops and waits for the workers, then releases every
// batch they produced that was not consumed.
func (s *Scan) Close() error {
	var err error
	if s.group != nil {
		s.cancel()
		_ = s.group.Wait() // workers report errors through their slots, never here
		for i := s.consumed; i < s.launched; i++ {
			for r := range s.slots[i] { // every launched worker has closed its slot
				if r.batch != nil {
					r.batch.Release()
				}
			}
		}
		s.group, s.slots = nil, nil
	}
	s.out.release()
	if s.reader != nil {
		s.countRead(s.reader)
		err = s.reader.Close()
		s.reader = nil
	}
	s.done = true
	return err
}
