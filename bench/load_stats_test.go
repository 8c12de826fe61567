package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// loadQuery is one entry of the load mix: sql(n) gives the statement for the client's n-th
// query, rows the row count it must return, alone its latency when it ran by itself.
type loadQuery struct {
	kind  string
	sql   func(n int) string
	rows  int64
	alone time.Duration
}

// loadKinds orders the query kinds in reports.
var loadKinds = []string{"point", "aggregate", "join", "scan"}

// loadMix builds the query rotation and learns each query's row count by running it alone:
// point lookups of existing order keys (one row each), TPC-H Q1 (aggregate), TPC-H Q3 (join),
// and full scans of nation and supplier.
func loadMix(b *testing.B, addr string) []loadQuery {
	b.Helper()
	cl := dialLoad(b, addr)
	defer func() { _ = cl.Close() }()
	ctx := context.Background()
	keys := orderKeys(b, cl)
	point := loadQuery{kind: "point", rows: 1, sql: func(n int) string {
		return fmt.Sprintf("SELECT o_orderkey, o_custkey, o_totalprice, o_orderdate, o_orderstatus FROM orders WHERE o_orderkey = %d",
			keys[(n*7919)%len(keys)])
	}}
	fixed := func(kind, sql string) loadQuery {
		runQuery(ctx, cl, sql) //nolint:errcheck // warm-up; the timed run below is checked
		start := time.Now()
		rows, err := runQuery(ctx, cl, sql)
		if err != nil || rows == 0 {
			b.Fatalf("load query %q alone: %d rows, %v", sql, rows, err)
		}
		return loadQuery{kind: kind, rows: rows, alone: time.Since(start), sql: func(int) string { return sql }}
	}
	mix := []loadQuery{
		point, fixed("aggregate", readQuery(b, "q01")),
		point, fixed("scan", "SELECT * FROM nation"),
		point, fixed("join", readQuery(b, "q03")),
		point, fixed("scan", "SELECT * FROM supplier"),
	}
	var alone []time.Duration
	for n := range 16 { // every key sampled returns its row
		start := time.Now()
		if rows, err := runQuery(ctx, cl, point.sql(n)); err != nil || rows != 1 {
			b.Fatalf("point query %q alone: %d rows, %v", point.sql(n), rows, err)
		}
		alone = append(alone, time.Since(start))
	}
	for i := range mix {
		if mix[i].kind == "point" {
			mix[i].alone = median(alone)
		}
	}
	return mix
}

// orderKeys returns the orders table's keys.
func orderKeys(b *testing.B, cl *flightsql.Client) []int64 {
	b.Helper()
	ctx := context.Background()
	info, err := cl.Execute(ctx, "SELECT o_orderkey FROM orders")
	if err != nil {
		b.Fatal(err)
	}
	var keys []int64
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			b.Fatal(err)
		}
		for rdr.Next() {
			col, ok := rdr.RecordBatch().Column(0).(*array.Int64)
			if !ok {
				b.Fatalf("o_orderkey is %s, want int64", rdr.RecordBatch().Column(0).DataType())
			}
			keys = append(keys, col.Int64Values()...)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(keys) == 0 {
		b.Fatal("orders is empty")
	}
	return keys
}

// loadRun is what a load run measured: latencies of successful queries by kind, errors (a
// failed query or a wrong row count) with the first few messages, and the wall time.
type loadRun struct {
	lat         map[string][]time.Duration
	alone       map[string]time.Duration // the slowest query of each kind when run by itself
	errors      int
	firstErrors []string
	elapsed     time.Duration
}

func newLoadRun(mix []loadQuery) *loadRun {
	r := &loadRun{lat: map[string][]time.Duration{}, alone: map[string]time.Duration{}}
	for _, q := range mix {
		r.lat[q.kind] = nil
		r.alone[q.kind] = max(r.alone[q.kind], q.alone)
	}
	return r
}

// record adds one query's outcome.
func (r *loadRun) record(kind string, d time.Duration, err error, rows, want int64, sql string) {
	switch {
	case err != nil:
		r.fail(fmt.Sprintf("%s: %v", sqlLabel(sql), err))
	case rows != want:
		r.fail(fmt.Sprintf("%s: %d rows, want %d", sqlLabel(sql), rows, want))
	default:
		r.lat[kind] = append(r.lat[kind], d)
	}
}

// sqlLabel is sql on one line, at most 80 characters.
func sqlLabel(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func (r *loadRun) fail(msg string) {
	r.errors++
	if len(r.firstErrors) < 5 {
		r.firstErrors = append(r.firstErrors, msg)
	}
}

// merge adds o's measurements to r.
func (r *loadRun) merge(o *loadRun) {
	if r.lat == nil {
		r.lat = map[string][]time.Duration{}
	}
	if r.alone == nil {
		r.alone = o.alone
	}
	for k, ds := range o.lat {
		r.lat[k] = append(r.lat[k], ds...)
	}
	r.errors += o.errors
	for _, m := range o.firstErrors {
		if len(r.firstErrors) < 5 {
			r.firstErrors = append(r.firstErrors, m)
		}
	}
	r.elapsed += o.elapsed
}

// all returns every latency, sorted.
func (r *loadRun) all() []time.Duration {
	var out []time.Duration
	for _, ds := range r.lat {
		out = append(out, ds...)
	}
	slices.Sort(out)
	return out
}

// qps is successful queries per second of wall time.
func (r *loadRun) qps() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(len(r.all())) / r.elapsed.Seconds()
}

// percentile returns the nearest-rank p-th percentile (0 < p ≤ 1) of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// procState is the process's goroutine count and live heap after a GC.
type procState struct {
	goroutines int
	heap       uint64
}

// Tolerances for "back to baseline": a few goroutines (runtime and gRPC housekeeping that
// come and go), and heap growth of 16 MiB or half the baseline, whichever is larger (caches
// warmed by the run, GC timing).
const (
	goroutineSlack = 4
	heapSlackMin   = 16 << 20
)

func (p procState) heapLimit() uint64 { return p.heap + max(heapSlackMin, p.heap/2) }

// takeBaseline measures the process after two GCs.
func takeBaseline() procState {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return procState{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc}
}

// waitBaseline measures the process until it is back within the tolerances of base or
// timeout passes, and returns the last measurement.
func waitBaseline(base procState, timeout time.Duration) procState {
	deadline := time.Now().Add(timeout)
	for {
		now := takeBaseline()
		if (now.goroutines <= base.goroutines+goroutineSlack && now.heap <= base.heapLimit()) || time.Now().After(deadline) {
			return now
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// failure says why the run fails (errors, leaks), or "" when it passes.
func (r *loadRun) failure(base, after procState, serverArrow int) string {
	var why []string
	if r.errors > 0 {
		why = append(why, fmt.Sprintf("%d queries failed, first: %s", r.errors, strings.Join(r.firstErrors, " | ")))
	}
	if after.goroutines > base.goroutines+goroutineSlack {
		why = append(why, fmt.Sprintf("goroutines %d after the run, baseline %d (+%d allowed)", after.goroutines, base.goroutines, goroutineSlack))
	}
	if after.heap > base.heapLimit() {
		why = append(why, fmt.Sprintf("heap %s after the run, baseline %s (limit %s)", mib(after.heap), mib(base.heap), mib(base.heapLimit())))
	}
	if serverArrow != 0 {
		why = append(why, fmt.Sprintf("server holds %d bytes of Arrow memory after the run", serverArrow))
	}
	if len(r.all()) == 0 {
		why = append(why, "no query completed")
	}
	return strings.Join(why, "; ")
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// report records the run's figures as benchmark metrics; ns/op is the overall p50 latency.
func (r *loadRun) report(b *testing.B, base, after procState, serverArrow int) {
	b.Helper()
	all := r.all()
	p50, p99 := percentile(all, 0.5), percentile(all, 0.99)
	b.ReportMetric(float64(p50.Nanoseconds()), "ns/op")
	b.ReportMetric(r.qps(), "queries/s")
	b.ReportMetric(p50.Seconds()*1e3, "p50-ms")
	b.ReportMetric(p99.Seconds()*1e3, "p99-ms")
	b.ReportMetric(float64(r.errors), "errors")
	b.ReportMetric(float64(after.goroutines-base.goroutines), "goroutines-delta")
	b.ReportMetric((float64(after.heap)-float64(base.heap))/(1<<20), "heap-delta-MiB")
	b.ReportMetric(float64(serverArrow), "server-arrow-bytes")
}

// summary is the run as text for RESULTS.md: overall and per-kind counts and latencies, and
// the process before and after.
func (r *loadRun) summary(base, after procState, serverArrow int) string {
	var sb strings.Builder
	all := r.all()
	fmt.Fprintf(&sb, "all        %6d queries  %8.1f queries/s  p50 %-10v p99 %-10v errors %d\n",
		len(all), r.qps(), percentile(all, 0.5).Round(10*time.Microsecond), percentile(all, 0.99).Round(10*time.Microsecond), r.errors)
	for _, k := range loadKinds {
		ds := slices.Sorted(slices.Values(r.lat[k]))
		fmt.Fprintf(&sb, "%-10s %6d queries  p50 %-10v p99 %-10v alone %v\n", k, len(ds),
			percentile(ds, 0.5).Round(10*time.Microsecond), percentile(ds, 0.99).Round(10*time.Microsecond),
			r.alone[k].Round(10*time.Microsecond))
	}
	fmt.Fprintf(&sb, "goroutines %d before, %d after; heap %s before, %s after; server Arrow memory after: %d bytes\n",
		base.goroutines, after.goroutines, mib(base.heap), mib(after.heap), serverArrow)
	for _, m := range r.firstErrors {
		fmt.Fprintf(&sb, "error: %s\n", m)
	}
	return sb.String()
}
