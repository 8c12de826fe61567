package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// knnRows is the kNN benchmark's table size: 1M vectors at FLIGHTD_BENCH_SCALE=1.
func knnRows(b *testing.B) int { return scaled(b, 1_000_000, 2_000) }

// knnData generates (once) the kNN data with py/gen_knn.py and returns its directory.
func knnData(b *testing.B, rows int) string {
	return cachedData(b, "knn-"+itoa(rows), "py/gen_knn.py", func(dir string) error {
		return runScript(b, "py/gen_knn.py", itoa(rows), dir)
	})
}

// knnQuery is an exact (brute-force) 10-nearest-neighbour search by L2 distance.
func knnQuery(b *testing.B, dir string) string {
	b.Helper()
	q, err := os.ReadFile(filepath.Join(dir, "query.txt"))
	if err != nil {
		b.Fatal(err)
	}
	return "SELECT id, array_distance(vec, [" + strings.TrimSpace(string(q)) +
		"]::FLOAT[128]) AS d FROM emb ORDER BY d LIMIT 10"
}

// BenchmarkKNN runs the brute-force kNN query (no index) over 128-dimensional float32
// vectors: flightd over Flight SQL (pyarrow client) against DuckDB in-process with 2
// threads on its own copy of the table, interleaved.
func BenchmarkKNN(b *testing.B) {
	rows := knnRows(b)
	dir := knnData(b, rows)
	sql := knnQuery(b, dir)
	addr := startFlightd(b, dir, runtime.GOMAXPROCS(0))
	p := startPeer(b)
	db := filepath.Join(dir, "knn.duckdb")
	var pr pairs
	for b.Loop() {
		duck := p.mustCall(b, map[string]any{"op": "duckdb", "db": db, "sql": sql, "threads": 2})
		ours := p.mustCall(b, map[string]any{"op": "flightsql", "addr": addr, "sql": sql})
		if ours.Rows != 10 || duck.Rows != 10 {
			b.Fatalf("rows: flightd %d, DuckDB %d, want 10", ours.Rows, duck.Rows)
		}
		pr.add(seconds(ours.Seconds), seconds(duck.Seconds))
	}
	b.ReportMetric(float64(rows), "vectors")
	pr.report(b, "duckdb")
}
