package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// Index benchmarks (issue #8, "Speed"): point lookup and 1% range with a BTREE, equality on
// a low-cardinality column with a BITMAP, on a table of 10M rows at FLIGHTD_BENCH_SCALE=1
// (py/gen_index.py). Each iteration runs, one after the other: flightd with the indexes
// (over Flight SQL to pyarrow.flight) and pylance's filtered to_table with the same indexes
// (warm dataset object); then as many runs of flightd on version 1 of the same table, which
// has no index (AT (VERSION => 1)), follow in a pass of their own. Bytes read are recorded for each side: flightd's from its object
// store (everything: manifest, index and data reads) and from EXPLAIN ANALYZE (the scan's
// data reads), pylance's from its scan statistics (bytes_read).

// indexRows is the table size: 10M rows at scale 1.
func indexRows(b *testing.B) int {
	return scaled(b, 10_000_000, 10_000)
}

// indexData generates (once) the indexed table and returns its directory.
func indexData(b *testing.B, rows int) string {
	return cachedData(b, "index-"+itoa(rows), "py/gen_index.py", func(dir string) error {
		return runScript(b, "py/gen_index.py", itoa(rows), dir)
	})
}

// indexPeer is a py/index_peer.py worker.
type indexPeer struct {
	cmd *osexec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// indexReply is one reply of py/index_peer.py.
type indexReply struct {
	Seconds   float64 `json:"seconds"`
	Rows      int64   `json:"rows"`
	ReadBytes int64   `json:"read_bytes"`
	IOPS      int64   `json:"iops"`
	Text      string  `json:"text"`
	Error     string  `json:"error"`
}

func startIndexPeer(b *testing.B) *indexPeer {
	b.Helper()
	cmd := osexec.Command(python(b), filepath.Join(benchDir(), "py", "index_peer.py"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatalf("index peer stdin: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatalf("index peer stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start index peer: %v", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	p := &indexPeer{cmd: cmd, in: in, out: sc}
	b.Cleanup(func() {
		_ = p.in.Close()
		_ = p.cmd.Wait()
	})
	return p
}

// call sends one request and returns its reply; a peer error fails the benchmark.
func (p *indexPeer) call(b *testing.B, req map[string]any) indexReply {
	b.Helper()
	line, err := json.Marshal(req)
	if err != nil {
		b.Fatalf("encode index peer request: %v", err)
	}
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		b.Fatalf("send index peer request: %v", err)
	}
	if !p.out.Scan() {
		b.Fatalf("index peer exited without a reply to %s: %v", line, p.out.Err())
	}
	var r indexReply
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		b.Fatalf("decode index peer reply %q: %v", p.out.Bytes(), err)
	}
	if r.Error != "" {
		b.Fatalf("index peer %v: %s", req["op"], r.Error)
	}
	return r
}

// startCountingFlightd is startFlightd (one endpoint per query) over a store that counts
// the bytes flightd reads.
func startCountingFlightd(b *testing.B, root string) (string, *countingStore) {
	b.Helper()
	inner, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	if err != nil {
		b.Fatal(err)
	}
	store := &countingStore{ObjectStore: inner}
	mem := newSizeAllocator()
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem,
		Exec: exec.Env{Parallelism: runtime.GOMAXPROCS(0)}, MaxEndpoints: 1})
	if err != nil {
		b.Fatal(err)
	}
	fsrv, addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		fsrv.Shutdown()
		if n := mem.size.Load(); n != 0 {
			b.Errorf("flightd still holds %d bytes of Arrow buffers after shutdown (a leak)", n)
		}
	})
	return addr.String(), store
}

// dirBytes is the total size of the files under dir.
func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		b.Fatalf("size of %s: %v", dir, err)
	}
	return n
}

// scanReadRE finds the bytes a Scan line of EXPLAIN ANALYZE read.
var scanReadRE = regexp.MustCompile(`(?m)^\s*Scan: .*read=([0-9.]+) (B|KiB|MiB|GiB)`)

// analyzeReadBytes sums the read= figures of the scans of an EXPLAIN ANALYZE text (rounded
// as EXPLAIN ANALYZE shows them); -1 when none is shown.
func analyzeReadBytes(text string) int64 {
	ms := scanReadRE.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return -1
	}
	var n float64
	for _, m := range ms {
		f, _ := strconv.ParseFloat(m[1], 64)
		n += f * map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
	}
	return int64(n)
}

// indexCase is one query of the benchmark: its WHERE clause, and what flightd's EXPLAIN and
// pylance's plan must show.
type indexCase struct {
	name, where, flightdIndex, pylanceIndex string
}

func indexCases(rows int) []indexCase {
	point := rows*765/1000 + 21
	lo := rows / 2
	return []indexCase{
		{"point", fmt.Sprintf("id = %d", point), "index: id_idx (BTree) on id", "@id_idx(BTree)"},
		{"range1pct", fmt.Sprintf("id BETWEEN %d AND %d", lo, lo+rows/100-1), "index: id_idx (BTree) on id", "@id_idx(BTree)"},
		{"bitmap", "cat = 'c0042'", "index: cat_idx (Bitmap) on cat", "@cat_idx(Bitmap)"},
	}
}

// BenchmarkIndexLookup: see the comment at the top of this file. Metrics: flightd-ms,
// pylance-ms, ratio-vs-pylance (target ≤ 1.0), noindex-ms and ratio-vs-noindex, floor-ms
// (the same client calls against a Flight server that does no work: index_floor_test.go,
// measured after each flightd/pylance pair, so flightd-ms minus floor-ms is what flightd
// itself spends); bytes read
// by flightd (store-B: everything it read from storage in the query; scan-B: EXPLAIN
// ANALYZE's figure), by flightd without the index (noindex-scan-B) and by pylance
// (pylance-B); table-B is the size of the data files.
func BenchmarkIndexLookup(b *testing.B) {
	rows := indexRows(b)
	root := indexData(b, rows)
	uri := filepath.Join(root, "ix.lance")
	tableBytes := dirBytes(b, filepath.Join(uri, "data"))
	addr, store := startCountingFlightd(b, root)
	p := startIndexPeer(b)
	for _, c := range indexCases(rows) {
		b.Run(c.name, func(b *testing.B) {
			sql := "SELECT * FROM ix WHERE " + c.where
			noIndex := "SELECT * FROM ix AT (VERSION => 1) WHERE " + c.where
			scanB, noScanB := checkIndexPlans(b, p, addr, uri, c, sql, noIndex)
			// Issue #8's acceptance: EXPLAIN ANALYZE of a point lookup over 10M rows reads
			// under 0.1% of the table's bytes.
			if c.name == "point" && rows >= 10_000_000 && (scanB < 0 || scanB*1000 >= tableBytes) {
				b.Fatalf("the point lookup read %d of the table's %d bytes: not under 0.1%%", scanB, tableBytes)
			}
			floorAddr := startFloorServer(b, addr, sql)
			var ps pairs
			var noix, floor []time.Duration
			var storeB, pyB, rows int64
			for b.Loop() {
				before := store.bytes.Load()
				ours := p.call(b, map[string]any{"op": "flightsql", "addr": addr, "sql": sql})
				storeB = store.bytes.Load() - before
				theirs := p.call(b, map[string]any{"op": "lance_filter", "uri": uri, "filter": c.where})
				if ours.Rows != theirs.Rows || ours.Rows == 0 {
					b.Fatalf("%s: flightd returned %d rows, pylance %d", c.where, ours.Rows, theirs.Rows)
				}
				rows, pyB = theirs.Rows, theirs.ReadBytes
				ps.add(seconds(ours.Seconds), seconds(theirs.Seconds))
				fl := p.call(b, map[string]any{"op": "flightsql", "addr": floorAddr, "sql": sql})
				if fl.Rows != ours.Rows {
					b.Fatalf("%s: the floor server returned %d rows, flightd %d", c.where, fl.Rows, ours.Rows)
				}
				floor = append(floor, seconds(fl.Seconds))
			}
			// Without the index: a pass of its own, so that no flightd/pylance pair above is
			// measured right after one of these full scans (flightd's process pays for a full
			// scan's garbage for a few milliseconds afterwards; pylance's does not).
			for range b.N {
				plain := p.call(b, map[string]any{"op": "flightsql", "addr": addr, "sql": noIndex})
				if plain.Rows != rows {
					b.Fatalf("%s: flightd returned %d rows without the index, %d with it", c.where, plain.Rows, rows)
				}
				noix = append(noix, seconds(plain.Seconds))
			}
			ps.report(b, "pylance")
			b.ReportMetric(median(floor).Seconds()*1e3, "floor-ms")
			mn := median(noix)
			b.ReportMetric(mn.Seconds()*1e3, "noindex-ms")
			if mn > 0 {
				b.ReportMetric(median(ps.ours).Seconds()/mn.Seconds(), "ratio-vs-noindex")
			}
			for unit, v := range map[string]int64{"store-B": storeB, "scan-B": scanB, "noindex-scan-B": noScanB,
				"pylance-B": pyB, "table-B": tableBytes} {
				b.ReportMetric(float64(v), unit)
			}
			b.Logf("%s: table rows %d; bytes read: flightd %d (scan %d, %.4f%% of the table's %d), "+
				"flightd without index scan %d, pylance %d", c.where, indexRows(b), storeB, scanB,
				100*float64(scanB)/float64(tableBytes), tableBytes, noScanB, pyB)
		})
	}
}

// checkIndexPlans verifies once that flightd (EXPLAIN ANALYZE) and pylance (explain_plan)
// use the expected index and that flightd does not on version 1, and returns the bytes
// flightd's scans read with and without the index.
func checkIndexPlans(b *testing.B, p *indexPeer, addr, uri string, c indexCase, sql, noIndex string) (int64, int64) {
	b.Helper()
	ours := p.call(b, map[string]any{"op": "flightsql_text", "addr": addr, "sql": "EXPLAIN ANALYZE " + sql})
	if !strings.Contains(ours.Text, c.flightdIndex) {
		b.Fatalf("flightd does not use %q for %s:\n%s", c.flightdIndex, sql, ours.Text)
	}
	plain := p.call(b, map[string]any{"op": "flightsql_text", "addr": addr, "sql": "EXPLAIN ANALYZE " + noIndex})
	if strings.Contains(plain.Text, "index: ") {
		b.Fatalf("flightd uses an index on version 1:\n%s", plain.Text)
	}
	theirs := p.call(b, map[string]any{"op": "lance_explain", "uri": uri, "filter": c.where})
	if !strings.Contains(theirs.Text, c.pylanceIndex) {
		b.Fatalf("pylance does not use %q for %s:\n%s", c.pylanceIndex, c.where, theirs.Text)
	}
	b.Logf("flightd EXPLAIN ANALYZE:\n%s", ours.Text)
	return analyzeReadBytes(ours.Text), analyzeReadBytes(plain.Text)
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndexLookupFlightd runs only flightd's side of BenchmarkIndexLookup, with an
// arrow-go Flight SQL client in the same process, so that -cpuprofile and -trace show
// flightd's costs alone (no Python peer). One sub-benchmark per query; b.N queries each.
func BenchmarkIndexLookupFlightd(b *testing.B) {
	rows := indexRows(b)
	root := indexData(b, rows)
	addr, _ := loadServer(b, root)
	cl := dialLoad(b, addr)
	defer cl.Close()
	ctx := context.Background()
	for _, c := range indexCases(rows) {
		b.Run(c.name, func(b *testing.B) {
			sql := "SELECT * FROM ix WHERE " + c.where
			var got int64
			cpu0 := processCPU(b)
			for b.Loop() {
				n, err := runQuery(ctx, cl, sql)
				if err != nil {
					b.Fatalf("%s: %v", sql, err)
				}
				got = n
			}
			if got == 0 {
				b.Fatalf("%s returned no rows", sql)
			}
			// CPU time is steadier than wall time on a loaded machine.
			b.ReportMetric((processCPU(b)-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
