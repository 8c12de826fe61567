package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// tpchResult is one query's outcome: medians of each engine, or why flightd could not run it.
type tpchResult struct {
	query                 string
	flightd, duck, duckPQ time.Duration
	rows                  int64
	// failure is set when flightd did not run the query: "not supported yet: ...",
	// "timed out after ...", or "failed: ..." for any other error.
	failure   string
	wrongRows string
}

// tpchTimeout bounds each flightd query (FLIGHTD_BENCH_TIMEOUT, a Go duration; default 30s),
// so a query planned pathologically (a cross join, say) is reported, not waited for.
func tpchTimeout(b *testing.B) time.Duration {
	s := os.Getenv("FLIGHTD_BENCH_TIMEOUT")
	if s == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		b.Fatalf("FLIGHTD_BENCH_TIMEOUT=%q: want a positive Go duration", s)
	}
	return d
}

// classify turns a peer error into a tpchResult failure.
func classify(r peerReply, timeout time.Duration) string {
	switch r.Kind {
	case "ArrowNotImplementedError", "FlightUnimplementedError":
		msg := serverMessage(r.Error)
		if !strings.Contains(msg, "not supported yet") {
			msg = "not supported yet: " + msg
		}
		return oneLine(msg)
	case "FlightTimedOutError", "FlightCancelledError":
		// The client's deadline is the only thing that cancels a call here; gRPC reports
		// it as either.
		return fmt.Sprintf("timed out after %v (client deadline)", timeout)
	default:
		return "failed: " + oneLine(serverMessage(r.Error))
	}
}

// BenchmarkTPCH runs the 22 TPC-H queries (queries/qNN.sql, DuckDB's text) over Flight SQL
// (flightd in-process, pyarrow.flight client) vs DuckDB in-process with 2 threads on its own
// tables and on the same data as Parquet, interleaved (DuckDB, flightd, DuckDB on Parquet, ...).
// Each query reports its medians and ratios; queries flightd cannot run are logged as
// "not supported yet: <error>", other errors as "failed: <error>", and queries slower than
// FLIGHTD_BENCH_TIMEOUT as timed out; none of these fail the run (a wrong row count does).
// The parent prints a summary with geometric means over the queries flightd ran.
func BenchmarkTPCH(b *testing.B) {
	dir := tpchData(b)
	addr := startFlightd(b, filepath.Join(dir, "lance"), runtime.GOMAXPROCS(0))
	p := startPeer(b)
	var results []tpchResult
	runs := 0
	for i := 1; i <= 22; i++ {
		name := fmt.Sprintf("q%02d", i)
		sql := readQuery(b, name)
		b.Run(name, func(b *testing.B) {
			res := runTPCHQuery(b, p, addr, dir, sql)
			runs = b.N
			res.query = name
			results = append(results, res)
		})
	}
	// A parent benchmark's log is not printed by `go test -bench`, so the summary goes to
	// stdout, where it lands between the benchmark lines.
	fmt.Printf("TPC-H SF%s summary (medians of %d interleaved runs; ratio = flightd / peer):\n%s",
		tpchSF(b), runs, tpchSummary(results))
}

func readQuery(b *testing.B, name string) string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(benchDir(), "queries", name+".sql"))
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimRight(strings.TrimSpace(string(src)), ";")
}

func runTPCHQuery(b *testing.B, p *peer, addr, dir, sql string) tpchResult {
	var res tpchResult
	var fd, dk, pq []time.Duration
	db, pqDir := filepath.Join(dir, "tpch.duckdb"), filepath.Join(dir, "parquet")
	timeout := tpchTimeout(b)
	for b.Loop() {
		duck := p.mustCall(b, map[string]any{"op": "duckdb", "db": db, "sql": sql, "threads": 2})
		res.rows = duck.Rows
		if res.failure != "" {
			continue // flightd already failed this query: do not wait for it again
		}
		ours := p.call(b, map[string]any{"op": "flightsql", "addr": addr, "sql": sql,
			"timeout": timeout.Seconds()})
		if ours.Error != "" {
			res.failure = classify(ours, timeout)
			continue
		}
		parq := p.mustCall(b, map[string]any{"op": "duckdb_parquet", "dir": pqDir, "sql": sql, "threads": 2})
		if ours.Rows != duck.Rows {
			res.wrongRows = fmt.Sprintf("WRONG RESULT: flightd returned %d rows, DuckDB %d", ours.Rows, duck.Rows)
		}
		fd, dk, pq = append(fd, seconds(ours.Seconds)), append(dk, seconds(duck.Seconds)), append(pq, seconds(parq.Seconds))
	}
	if res.failure != "" {
		b.Log(res.failure)
		b.ReportMetric(0, "ns/op") // the loop's time is DuckDB's and the failure's: meaningless
		return res
	}
	if res.wrongRows != "" {
		b.Error(res.wrongRows)
	}
	res.flightd, res.duck, res.duckPQ = median(fd), median(dk), median(pq)
	b.ReportMetric(float64(res.flightd.Nanoseconds()), "ns/op")
	b.ReportMetric(res.flightd.Seconds()*1e3, "flightd-ms")
	b.ReportMetric(res.duck.Seconds()*1e3, "duckdb-ms")
	b.ReportMetric(res.duckPQ.Seconds()*1e3, "duckdb-parquet-ms")
	b.ReportMetric(res.flightd.Seconds()/res.duck.Seconds(), "ratio-vs-duckdb")
	b.ReportMetric(res.flightd.Seconds()/res.duckPQ.Seconds(), "ratio-vs-duckdb-parquet")
	return res
}

// tpchSummary renders one line per query and the geometric means of the ratios.
func tpchSummary(results []tpchResult) string {
	var sb strings.Builder
	var logDuck, logPQ float64
	ran := 0
	for _, r := range results {
		switch {
		case r.failure != "":
			fmt.Fprintf(&sb, "%s  %s\n", r.query, r.failure)
		default:
			rd, rp := r.flightd.Seconds()/r.duck.Seconds(), r.flightd.Seconds()/r.duckPQ.Seconds()
			fmt.Fprintf(&sb, "%s  flightd %v  duckdb %v  duckdb-parquet %v  ratio %.2f / %.2f  rows %d %s\n",
				r.query, r.flightd.Round(time.Microsecond), r.duck.Round(time.Microsecond),
				r.duckPQ.Round(time.Microsecond), rd, rp, r.rows, r.wrongRows)
			logDuck, logPQ = logDuck+math.Log(rd), logPQ+math.Log(rp)
			ran++
		}
	}
	if ran > 0 {
		fmt.Fprintf(&sb, "geometric mean over the %d queries flightd ran: %.2f vs duckdb, %.2f vs duckdb-parquet\n",
			ran, math.Exp(logDuck/float64(ran)), math.Exp(logPQ/float64(ran)))
	}
	fmt.Fprintf(&sb, "%d of %d queries not run by flightd (not supported yet, failed or timed out)\n",
		len(results)-ran, len(results))
	return sb.String()
}

// serverMessage is the server's message inside a pyarrow Flight error, without pyarrow's
// wrapping ("Flight returned ... error, with message: ...; gRPC client debug context: ...").
func serverMessage(s string) string {
	if _, after, ok := strings.Cut(s, "with message: "); ok {
		s = after
	}
	s, _, _ = strings.Cut(s, ". gRPC client debug context")
	return s
}

// oneLine shortens an error message to its first line, at most 200 characters.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// BenchmarkTPCHInProcess runs the 22 TPC-H queries through flightsrv.Server.Execute (planner
// and executor, no Flight transport, no peer), one sub-benchmark per query, for profiling
// the executor: `go test -run '^$' -bench 'TPCHInProcess/q0[16]$' -cpuprofile cpu.out`.
// Besides wall time it reports cpu-ms/op, the process's CPU time per query, which a loaded
// machine disturbs less. Queries flightd cannot run are skipped with their error.
func BenchmarkTPCHInProcess(b *testing.B) {
	dir := tpchData(b)
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(filepath.Join(dir, "lance")))
	if err != nil {
		b.Fatal(err)
	}
	mem := newSizeAllocator()
	defer mem.AssertSize(b, 0)
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem,
		Exec: exec.Env{Parallelism: runtime.GOMAXPROCS(0)}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= 22; i++ {
		name := fmt.Sprintf("q%02d", i)
		sql := readQuery(b, name)
		b.Run(name, func(b *testing.B) {
			cpu0 := processCPU(b)
			for b.Loop() {
				if err := drainQuery(ctx, srv, sql); err != nil {
					b.Skip(oneLine(err.Error()))
				}
			}
			// CPU time (user + system) is steadier than wall time on a loaded machine.
			b.ReportMetric(float64((processCPU(b)-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// drainQuery executes sql in-process and releases every batch.
func drainQuery(ctx context.Context, srv *flightsrv.Server, sql string) error {
	op, err := srv.Execute(ctx, sql)
	if err != nil {
		return err
	}
	defer op.Close()
	for {
		rec, err := op.Next(ctx)
		if err != nil || rec == nil {
			return err
		}
		rec.Release()
	}
}
