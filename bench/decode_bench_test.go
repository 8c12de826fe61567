package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// decodeRows is the decode benchmark's row count at FLIGHTD_BENCH_SCALE=1. The issue asks
// for 10M (FLIGHTD_BENCH_ROWS=10000000): both sides stream it, but 10M × 128 float32 is a
// 5 GiB file that takes minutes per side, a run for an idle machine; 1M is the default.
const decodeRows = 1_000_000

// streamBatch is the rows per batch of the streaming read benchmark, on both sides.
const streamBatch = 64 << 10

// takeRows is how many random rows the take benchmark reads.
const takeRows = 1000

// decodeRowCount is the decode file's row count: FLIGHTD_BENCH_ROWS if set, otherwise
// decodeRows scaled by FLIGHTD_BENCH_SCALE.
func decodeRowCount(b *testing.B) int {
	if v := os.Getenv("FLIGHTD_BENCH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("FLIGHTD_BENCH_ROWS=%q: want a positive row count", v)
		}
		return n
	}
	return scaled(b, decodeRows, 10_000)
}

// decodeFile writes (once) the 2.1 file of py/gen_file.py and returns its directory and name.
func decodeFile(b *testing.B) (dir, name string) {
	rows := decodeRowCount(b)
	name = "decode.lance"
	dir = cachedData(b, "decode-"+itoa(rows), "py/gen_file.py", func(dir string) error {
		return runScript(b, "py/gen_file.py", itoa(rows), filepath.Join(dir, name))
	})
	return dir, name
}

// decodeStore opens dir as a file store whose requests are counted. lanceio's
// CountingStore keeps the store's ReadRangeInto (the server's reads recycle page buffers).
func decodeStore(ctx context.Context, b *testing.B, dir string) *lanceio.CountingStore {
	b.Helper()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(dir))
	if err != nil {
		b.Fatal(err)
	}
	return lanceio.NewCountingStore(store)
}

// reportIO records the store's requests (reads and the Size call of each Open) and bytes
// read per iteration (of n) as metrics.
func reportIO(b *testing.B, s *lanceio.CountingStore, n int) {
	if n == 0 {
		return
	}
	b.ReportMetric(float64(s.Requests())/float64(n), "flightd-reads/op")
	b.ReportMetric(float64(s.BytesRead())/float64(n)/1e6, "flightd-read-MB/op")
}

// openDecodeFile opens the file with flightd's reader and returns it with all its field ids.
func openDecodeFile(ctx context.Context, b *testing.B, store lanceio.ObjectStore, name string) (*file.Reader, []int32) {
	b.Helper()
	r, err := file.Open(ctx, store, name)
	if err != nil {
		b.Fatal(err)
	}
	var ids []int32
	for _, f := range r.Schema().Fields {
		ids = append(ids, f.ID)
	}
	return r, ids
}

// checkArrays fails unless arrs are 4 columns of n rows, then releases them.
func checkArrays(b *testing.B, arrs []arrow.Array, n int) {
	b.Helper()
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	if len(arrs) != 4 {
		b.Fatalf("got %d columns, want 4", len(arrs))
	}
	for _, a := range arrs {
		if a.Len() != n {
			b.Fatalf("column %s: got %d rows, want %d", a.DataType(), a.Len(), n)
		}
	}
}

// BenchmarkLanceFileReadRange: flightd's file.Open + a Cursor reading every row and column
// of a 2.1 file (int64, float64, utf8, fixed_size_list<float32>[128]) in streamBatch-row
// ranges, as a table scan does, vs pylance's LanceFileReader(path).read_all(batch_size=
// streamBatch) iterated batch by batch (py/read_file.py, timed inside the script),
// interleaved. Both sides drop each batch before decoding the next, so a 10M-row file is
// never held whole. Target ratio ≤ 1.3.
func BenchmarkLanceFileReadRange(b *testing.B) {
	ctx := context.Background()
	dir, name := decodeFile(b)
	path := filepath.Join(dir, name)
	store := decodeStore(ctx, b, dir)
	mem := newSizeAllocator()
	defer mem.AssertSize(b, 0)
	var ps pairs
	for b.Loop() {
		start := time.Now()
		rows := streamFile(ctx, b, store, name, mem)
		ours := time.Since(start)
		rep := pylanceStream(b, path)
		if rep.Rows != int64(rows) {
			b.Fatalf("pylance read %d rows, flightd %d", rep.Rows, rows)
		}
		ps.add(ours, seconds(rep.Seconds))
	}
	ps.report(b, "pylance")
	reportIO(b, store, len(ps.ours))
}

// streamFile opens the file and reads all of it through one Cursor in streamBatch-row
// batches, releasing each; it returns the rows read.
func streamFile(ctx context.Context, b *testing.B, store lanceio.ObjectStore, name string, mem memory.Allocator) int {
	r, ids := openDecodeFile(ctx, b, store, name)
	c := r.NewCursor()
	for lo := uint64(0); lo < r.NumRows(); lo += streamBatch {
		hi := min(lo+streamBatch, r.NumRows())
		arrs, err := c.ReadRange(ctx, ids, lo, hi, mem)
		if err != nil {
			b.Fatal(err)
		}
		checkArrays(b, arrs, int(hi-lo))
	}
	return int(r.NumRows())
}

// pylanceStream runs py/read_file.py over path and returns its timing and row count.
func pylanceStream(b *testing.B, path string) peerReply {
	b.Helper()
	cmd := exec.Command(python(b), filepath.Join(benchDir(), "py", "read_file.py"), path, itoa(streamBatch))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("py/read_file.py %s: %v: %s", path, err, stderr.String())
	}
	var rep peerReply
	if err := json.Unmarshal(out, &rep); err != nil {
		b.Fatalf("py/read_file.py output %q: %v", out, err)
	}
	return rep
}

// BenchmarkLanceFileTake: flightd's file.Open + Take of 1,000 random rows (sorted, unique)
// vs pylance's LanceFileReader(path).take_rows of the same rows, interleaved. Target ≤ 1.0.
func BenchmarkLanceFileTake(b *testing.B) {
	ctx := context.Background()
	dir, name := decodeFile(b)
	path := filepath.Join(dir, name)
	r0, _ := openDecodeFile(ctx, b, decodeStore(ctx, b, dir), name)
	store := decodeStore(ctx, b, dir)
	rng := rand.New(rand.NewPCG(1, 2))
	rows := randomRows(rng, r0.NumRows(), takeRows)
	p := startPeer(b)
	mem := newSizeAllocator()
	defer mem.AssertSize(b, 0)
	var ps pairs
	for b.Loop() {
		start := time.Now()
		r, ids := openDecodeFile(ctx, b, store, name)
		arrs, err := r.Take(ctx, ids, rows, mem)
		ours := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		checkArrays(b, arrs, len(rows))
		rep := p.mustCall(b, map[string]any{"op": "lance_file_take", "path": path, "rows": rows})
		if rep.Rows != int64(len(rows)) {
			b.Fatalf("pylance took %d rows, want %d", rep.Rows, len(rows))
		}
		ps.add(ours, seconds(rep.Seconds))
	}
	ps.report(b, "pylance")
	reportIO(b, store, len(ps.ours))
}

// randomRows returns up to k distinct row numbers below n, sorted.
func randomRows(rng *rand.Rand, n uint64, k int) []uint64 {
	seen := map[uint64]bool{}
	for len(seen) < k && uint64(len(seen)) < n {
		seen[rng.Uint64N(n)] = true
	}
	rows := make([]uint64, 0, len(seen))
	for r := range seen {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	return rows
}
