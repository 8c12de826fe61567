package ops

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// rfTarget is a run-time join filter attached to one scan: the scan drops the rows whose
// column col fails it. It turns itself off for this scan when, after rfSampleRows rows,
// it has kept more than rfKeepLimit of them (checking a row costs about as much as it
// saves when nearly every row passes). Workers of a parallel scan share it.
type rfTarget struct {
	f          *RuntimeFilter
	col        int
	seen, kept atomic.Int64
	off        atomic.Bool
}

const (
	rfSampleRows = 1 << 17
	rfKeepLimit  = 0.9
)

// AddRuntimeFilter makes the scan drop, before its own filter, the rows whose output
// column col fails f (once f is published). The caller guarantees that the rows dropped
// cannot contribute to the query's result (exec/build/runtime_filter.go).
func (s *Scan) AddRuntimeFilter(f *RuntimeFilter, col int) {
	s.rfs = append(s.rfs, &rfTarget{f: f, col: col})
}

// RuntimeFilters returns the number of run-time filters attached to the scan.
func (s *Scan) RuntimeFilters() int { return len(s.rfs) }

// applyRuntimeFilters returns the rows of b that pass every published filter; it takes
// ownership of b.
func (s *Scan) applyRuntimeFilters(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	for _, t := range s.rfs {
		if b.NumRows() == 0 {
			break
		}
		set := t.f.active()
		if set == nil || t.off.Load() || t.col >= int(b.NumCols()) {
			continue
		}
		buf := getSel()
		sel, ok := set.selectRows(b.Column(t.col), (*buf)[:0])
		if !ok {
			putSel(buf, sel)
			continue
		}
		t.count(b.NumRows(), len(sel))
		if len(sel) == int(b.NumRows()) {
			putSel(buf, sel)
			continue
		}
		next, err := takeSel(ctx, s.env.Mem, b, sel)
		putSel(buf, sel)
		b.Release()
		if err != nil {
			return nil, err
		}
		b = next
	}
	return b, nil
}

// count records a batch of rows rows of which kept passed, and turns t off when it keeps
// too many.
func (t *rfTarget) count(rows int64, kept int) {
	seen := t.seen.Add(rows)
	k := t.kept.Add(int64(kept))
	if seen >= rfSampleRows && float64(k) > rfKeepLimit*float64(seen) {
		t.off.Store(true)
	}
}
