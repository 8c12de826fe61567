package ops

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/planner/plan"
)

// morselQueue hands the morsels of one scan to several worker scans, each morsel to exactly
// one of them, in table order as workers ask (DuckDB-style dynamic morsel scheduling).
type morselQueue struct {
	once    sync.Once
	err     error
	morsels []catalog.Morsel
	next    atomic.Int64
}

// list lists the morsels once, on the first worker's Open.
func (q *morselQueue) list(ctx context.Context, s *Scan) error {
	q.once.Do(func() {
		ms, err := s.table.Morsels(ctx, s.req)
		if err != nil {
			q.err = fmt.Errorf("scan %s: list morsels: %w", s.table.Name(), err)
			return
		}
		q.morsels = s.keepShard(ms)
	})
	return q.err
}

// take returns the next morsel not yet handed out.
func (q *morselQueue) take() (catalog.Morsel, int, bool) {
	i := int(q.next.Add(1) - 1)
	if i >= len(q.morsels) {
		return catalog.Morsel{}, i, false
	}
	return q.morsels[i], i, true
}

// nextMorsel returns the scan's next morsel and its position.
func (s *Scan) nextMorsel() (catalog.Morsel, int, bool) {
	if s.shared != nil {
		return s.shared.take()
	}
	if s.next >= len(s.morsels) {
		return catalog.Morsel{}, s.next, false
	}
	s.next++
	return s.morsels[s.next-1], s.next - 1, true
}

// NewSharedScans returns n scans of one table (n ≥ 1) that share its morsels: together they
// read every row of the scan once, each morsel by whichever scan asks first, so their
// outputs are in no particular order. They are the sources of the workers of a
// ParallelAggregate. Each reads sequentially (env.Parallelism is ignored). A pushed-down
// limit cannot be shared: the plan's Limit must be negative.
func NewSharedScans(scan *plan.Scan, n int, env exec.Env) ([]*Scan, error) {
	if scan.Limit >= 0 {
		return nil, fmt.Errorf("shared scans of %s: a scan with a limit cannot be shared", scan.Table.Name())
	}
	env = env.WithDefaults()
	env.Parallelism = 1
	q := &morselQueue{}
	out := make([]*Scan, max(n, 1))
	for i := range out {
		out[i] = NewScan(scan, env)
		out[i].shared = q
	}
	return out, nil
}

// countRead adds what rd read (catalog.ScanStats) to the scan's total; safe from workers.
func (s *Scan) countRead(rd catalog.RecordReader) {
	if st, ok := rd.(catalog.ScanStats); ok {
		s.bytesRead.Add(st.BytesRead())
	}
	if st, ok := rd.(catalog.CacheStats); ok {
		s.bytesHit.Add(st.BytesCached())
	}
}

// BytesRead returns the bytes read from storage by the readers this scan has closed
// (exec.ReadCounter, shown by EXPLAIN ANALYZE).
func (s *Scan) BytesRead() int64 { return s.bytesRead.Load() }

// BytesCached returns the page bytes the readers this scan has closed took from a cache
// (exec.CacheCounter, shown by EXPLAIN ANALYZE).
func (s *Scan) BytesCached() int64 { return s.bytesHit.Load() }
