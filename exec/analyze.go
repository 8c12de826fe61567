package exec

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/units"
)

// ReadCounter is implemented by operators that read from storage (the scan): BytesRead is
// what they have read so far. EXPLAIN ANALYZE shows it per operator.
type ReadCounter interface {
	BytesRead() int64
}

// CacheCounter is implemented by operators whose reads a cache can serve (the scan):
// BytesCached is what they took from it so far. EXPLAIN ANALYZE shows it as cached=.
type CacheCounter interface {
	BytesCached() int64
}

// OpStats are the runtime counters of one plan operator for EXPLAIN ANALYZE. Every
// operator instance that runs the same plan node (the workers of a parallel pipeline) adds
// to the same OpStats, so the counters are atomic.
type OpStats struct {
	// Label is the operator's line in the plan (its EXPLAIN line, with the physical form).
	Label string
	// Children are the stats of the operator's inputs.
	Children []*OpStats

	rows, batches, nanos, bytesRead, bytesCached, instances atomic.Int64
}

// Rows returns the rows the operator has output.
func (s *OpStats) Rows() int64 { return s.rows.Load() }

// Batches returns the batches the operator has output.
func (s *OpStats) Batches() int64 { return s.batches.Load() }

// Time returns the time spent in the operator's Open, Next and Close, its inputs included,
// summed over its instances (for a parallel pipeline: over the workers).
func (s *OpStats) Time() time.Duration { return time.Duration(s.nanos.Load()) }

// BytesRead returns the bytes the operator read from storage (scans only).
func (s *OpStats) BytesRead() int64 { return s.bytesRead.Load() }

// BytesCached returns the page bytes the operator took from a cache (scans only).
func (s *OpStats) BytesCached() int64 { return s.bytesCached.Load() }

// Instances returns how many operator instances ran this node (workers); 0 if never opened.
func (s *OpStats) Instances() int64 { return s.instances.Load() }

// Profile is the set of OpStats of one query run for EXPLAIN ANALYZE, keyed by plan node.
// exec/build creates it (Env.Profile) when Env.Analyze is set.
type Profile struct {
	pool  *MemoryPool
	mu    sync.Mutex
	nodes map[any]*OpStats
}

// NewProfile returns an empty profile; pool (may be nil) is the query's memory pool, whose
// peak Analyze reports.
func NewProfile(pool *MemoryPool) *Profile {
	return &Profile{pool: pool, nodes: map[any]*OpStats{}}
}

// Stats returns the OpStats of node, creating it with label if it does not exist yet.
func (p *Profile) Stats(node any, label string) *OpStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.nodes[node]
	if !ok {
		s = &OpStats{Label: label}
		p.nodes[node] = s
	}
	return s
}

// Lookup returns the OpStats of node, if an operator was built for it.
func (p *Profile) Lookup(node any) (*OpStats, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.nodes[node]
	return s, ok
}

// Analyzed wraps an operator and records its rows, batches, time and bytes read into an
// OpStats. It is otherwise transparent.
type Analyzed struct {
	op      Operator
	stats   *OpStats
	profile *Profile
	read    int64 // op's BytesRead already added to stats
	cached  int64 // op's BytesCached already added to stats
}

// NewAnalyzed wraps op; profile (may be nil) is what Analyze reports the memory peak from.
func NewAnalyzed(op Operator, stats *OpStats, profile *Profile) *Analyzed {
	return &Analyzed{op: op, stats: stats, profile: profile}
}

// Stats returns the wrapped operator's stats.
func (a *Analyzed) Stats() *OpStats { return a.stats }

// Schema implements Operator.
func (a *Analyzed) Schema() *arrow.Schema { return a.op.Schema() }

// Open implements Operator.
func (a *Analyzed) Open(ctx context.Context) error {
	a.stats.instances.Add(1)
	defer a.timed(time.Now())
	return a.op.Open(ctx)
}

// Next implements Operator.
func (a *Analyzed) Next(ctx context.Context) (arrow.RecordBatch, error) {
	defer a.timed(time.Now())
	b, err := a.op.Next(ctx)
	if b != nil {
		a.stats.rows.Add(b.NumRows())
		a.stats.batches.Add(1)
	}
	return b, err
}

// Close implements Operator.
func (a *Analyzed) Close() error {
	defer a.timed(time.Now())
	return a.op.Close()
}

// timed adds the time since start and any new bytes read.
func (a *Analyzed) timed(start time.Time) {
	a.stats.nanos.Add(int64(time.Since(start)))
	if rc, ok := a.op.(ReadCounter); ok {
		n := rc.BytesRead()
		a.stats.bytesRead.Add(n - a.read)
		a.read = n
	}
	if cc, ok := a.op.(CacheCounter); ok {
		n := cc.BytesCached()
		a.stats.bytesCached.Add(n - a.cached)
		a.cached = n
	}
}

// Analyze renders the runtime profile of op for EXPLAIN ANALYZE, after op has run (been
// drained and closed). op must come from exec/build.Build with Env.Analyze set; otherwise
// Analyze returns "". The tree has one line per operator, children indented by two spaces,
// each its plan line followed by its counters, then a line with the query's memory peak:
//
//	Limit: offset=0 count=3 [TopN with Sort: x#0]  (rows=3 batches=1 time=1.2ms)
//	  Scan: t version=1 columns=[x#0] filter=none limit=none  (rows=100 batches=1 time=0.8ms read=800 B)
//	Memory: peak 2.0 KiB reserved
//
// read= is what scans read from storage, cached= the page bytes they took from the data
// cache instead (each shown when not zero).
//
// time includes the operator's inputs and, for operators several workers ran (workers=N),
// is summed over the workers.
func Analyze(op Operator) string {
	a, ok := op.(*Analyzed)
	if !ok {
		return ""
	}
	var b strings.Builder
	renderStats(&b, a.stats, 0)
	if a.profile != nil && a.profile.pool != nil {
		limit := "unlimited"
		if l := a.profile.pool.Limit(); l > 0 {
			limit = units.FormatBytes(l)
		}
		fmt.Fprintf(&b, "Memory: peak %s reserved (limit %s)\n", units.FormatBytes(a.profile.pool.Peak()), limit)
	}
	return b.String()
}

func renderStats(b *strings.Builder, s *OpStats, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(b, "%s  (rows=%d batches=%d time=%s", s.Label, s.Rows(), s.Batches(), formatDuration(s.Time()))
	if n := s.BytesRead(); n > 0 {
		fmt.Fprintf(b, " read=%s", units.FormatBytes(n))
	}
	if n := s.BytesCached(); n > 0 {
		fmt.Fprintf(b, " cached=%s", units.FormatBytes(n))
	}
	if n := s.Instances(); n > 1 {
		fmt.Fprintf(b, " workers=%d", n)
	}
	b.WriteString(")\n")
	for _, c := range s.Children {
		renderStats(b, c, depth+1)
	}
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
