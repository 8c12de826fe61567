package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// loadClients is how many concurrent clients the load benchmark runs.
const loadClients = 32

// loadQueryTimeout bounds one query of the load run; a query slower than this is an error.
const loadQueryTimeout = 30 * time.Second

// loadDuration is FLIGHTD_LOAD_SECONDS; unset means 60 s for real runs (FLIGHTD_BENCH_SCALE
// set, as `make bench` does) and 3 s otherwise (`make bench-smoke`).
func loadDuration(b *testing.B) time.Duration {
	b.Helper()
	s := os.Getenv("FLIGHTD_LOAD_SECONDS")
	if s == "" {
		if os.Getenv("FLIGHTD_BENCH_SCALE") != "" {
			return 60 * time.Second
		}
		return 3 * time.Second
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		b.Fatalf("FLIGHTD_LOAD_SECONDS=%q: want a positive number", s)
	}
	return time.Duration(f * float64(time.Second))
}

// loadSF is the TPC-H scale factor of the load run's tables: FLIGHTD_LOAD_SF, default 0.01
// (60k lineitem rows), whatever FLIGHTD_BENCH_SCALE says: the run measures concurrency, so the
// queries stay small.
func loadSF(b *testing.B) string {
	b.Helper()
	s := os.Getenv("FLIGHTD_LOAD_SF")
	if s == "" {
		return "0.01"
	}
	if f, err := strconv.ParseFloat(s, 64); err != nil || f <= 0 {
		b.Fatalf("FLIGHTD_LOAD_SF=%q: want a positive number", s)
	}
	return s
}

// loadServer serves root in-process like startFlightd, with the default single endpoint per
// query (flightd's own default) and logging at Warn (one Info line per RPC would bury the
// benchmark's output), and returns its address and checked allocator.
func loadServer(b *testing.B, root string) (string, *sizeAllocator) {
	b.Helper()
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	if err != nil {
		b.Fatal(err)
	}
	mem := newSizeAllocator()
	srv, err := flightsrv.New(flightsrv.Config{
		Catalog: lancecat.New(store),
		Mem:     mem,
		Exec:    exec.Env{Parallelism: runtime.GOMAXPROCS(0)},
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		b.Fatal(err)
	}
	fs, addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fs.Shutdown()
		mem.AssertSize(b, 0)
	})
	return addr.String(), mem
}

// dialLoad connects one arrow-go Flight SQL client (its own gRPC connection).
func dialLoad(b *testing.B, addr string) *flightsql.Client {
	b.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	return cl
}

// runQuery runs sql (Execute, then DoGet of every endpoint) and returns its row count.
func runQuery(ctx context.Context, cl *flightsql.Client, sql string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, loadQueryTimeout)
	defer cancel()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return 0, err
	}
	var rows int64
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return rows, err
		}
		for rdr.Next() {
			rows += rdr.RecordBatch().NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// BenchmarkLoad32Clients runs 32 concurrent arrow-go Flight SQL clients, each with its own
// connection, against one in-process flightd for FLIGHTD_LOAD_SECONDS, each client cycling
// through a mixed query set (point filter, aggregate, TPC-H Q3 join, full scans of small
// tables) over TPC-H tables at FLIGHTD_LOAD_SF. It records throughput and p50/p99 latency
// overall and per kind, and fails when any query errs or returns a row count other than the
// one it returned alone, or when goroutines, heap or the server's Arrow memory do not come back
// to their baseline after the clients disconnect. Each b.Loop iteration is one full run.
func BenchmarkLoad32Clients(b *testing.B) {
	sf := loadSF(b)
	dir := cachedData(b, "tpch-sf"+sf, "tpch/gen.py", func(dir string) error {
		return runScript(b, "tpch/gen.py", sf, dir)
	})
	addr, mem := loadServer(b, filepath.Join(dir, "lance"))
	mix := loadMix(b, addr)
	base := takeBaseline()
	dur := loadDuration(b)
	var all loadRun
	for b.Loop() {
		run := runLoad(b, addr, mix, dur)
		all.merge(run)
	}
	after := waitBaseline(base, 15*time.Second)
	all.report(b, base, after, mem.CurrentAlloc())
	fmt.Printf("Load: %d clients, TPC-H SF%s, %v per run, %d run(s):\n%s", loadClients, sf, dur,
		b.N, all.summary(base, after, mem.CurrentAlloc()))
	if msg := all.failure(base, after, mem.CurrentAlloc()); msg != "" {
		b.Fatal(msg)
	}
}

// runLoad runs the clients for d and returns what they measured.
func runLoad(b *testing.B, addr string, mix []loadQuery, d time.Duration) *loadRun {
	b.Helper()
	clients := make([]*flightsql.Client, loadClients)
	for i := range clients {
		clients[i] = dialLoad(b, addr)
	}
	defer func() {
		for _, cl := range clients {
			_ = cl.Close()
		}
	}()
	run := newLoadRun(mix)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := time.Now()
	for i, cl := range clients {
		wg.Go(func() {
			local := newLoadRun(mix)
			for n := i; time.Now().Before(deadline); n++ {
				q := mix[n%len(mix)]
				sql := q.sql(n)
				t0 := time.Now()
				rows, err := runQuery(context.Background(), cl, sql)
				local.record(q.kind, time.Since(t0), err, rows, q.rows, sql)
			}
			mu.Lock()
			run.merge(local)
			mu.Unlock()
		})
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	return run
}
