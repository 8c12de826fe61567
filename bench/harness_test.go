package bench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// scale is FLIGHTD_BENCH_SCALE: 1 means the real sizes recorded in RESULTS.md; unset means
// tiny sizes that make `-benchtime 1x` (make bench-smoke) run in seconds.
func scale(b *testing.B) float64 {
	b.Helper()
	s := os.Getenv("FLIGHTD_BENCH_SCALE")
	if s == "" {
		return 0.001
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		b.Fatalf("FLIGHTD_BENCH_SCALE=%q: want a positive number", s)
	}
	return f
}

// scaled returns full×scale, at least lo.
func scaled(b *testing.B, full, lo int) int {
	return max(lo, int(float64(full)*scale(b)))
}

// benchDir is the directory of this package's sources.
func benchDir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Dir(here)
}

// python returns the pinned virtualenv's interpreter (FLIGHTD_PYTHON overrides), or fails.
func python(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("FLIGHTD_PYTHON"); p != "" {
		return p
	}
	p := filepath.Join(benchDir(), "..", ".venv", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		b.Fatalf("the Python peers are missing (%s): run `make venv` or `make bench`", p)
	}
	return p
}

// dataMu serializes data generation within one test binary.
var dataMu sync.Mutex

// cachedData returns a directory holding the output of gen(dir). Generated data is kept
// under FLIGHTD_BENCH_DATA (default: the OS temp dir + "flightd-bench") keyed by name and
// the generator script's hash, so repeated runs reuse it; a ".done" stamp marks it complete.
func cachedData(b *testing.B, name, script string, gen func(dir string) error) string {
	b.Helper()
	dataMu.Lock()
	defer dataMu.Unlock()
	src, err := os.ReadFile(filepath.Join(benchDir(), script))
	if err != nil {
		b.Fatalf("read generator %s: %v", script, err)
	}
	sum := sha256.Sum256(src)
	root := os.Getenv("FLIGHTD_BENCH_DATA")
	if root == "" {
		root = filepath.Join(os.TempDir(), "flightd-bench")
	}
	dir := filepath.Join(root, name+"-"+hex.EncodeToString(sum[:4]))
	if _, err := os.Stat(filepath.Join(dir, ".done")); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatalf("clear %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("create %s: %v", dir, err)
	}
	start := time.Now()
	if err := gen(dir); err != nil {
		b.Fatalf("generate %s: %v", name, err)
	}
	b.Logf("generated %s in %s", dir, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
		b.Fatalf("stamp %s: %v", dir, err)
	}
	return dir
}

// runScript runs a Python script of this package with args.
func runScript(b *testing.B, script string, args ...string) error {
	cmd := exec.Command(python(b), append([]string{filepath.Join(benchDir(), script)}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %w: %s", script, args, err, out)
	}
	return nil
}

// peer is a long-lived py/peer.py worker: requests go in as JSON lines, timings come back.
type peer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// peerReply is one reply of the worker; Error is set when the operation failed.
type peerReply struct {
	Seconds float64 `json:"seconds"`
	Rows    int64   `json:"rows"`
	Bytes   int64   `json:"bytes"`
	Columns int     `json:"columns"`
	Error   string  `json:"error"`
	Kind    string  `json:"kind"` // the Python exception class of Error
}

func startPeer(b *testing.B) *peer {
	b.Helper()
	cmd := exec.Command(python(b), filepath.Join(benchDir(), "py", "peer.py"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatalf("peer stdin: %v", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatalf("peer stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start peer: %v", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	p := &peer{cmd: cmd, in: in, out: sc}
	b.Cleanup(p.close)
	return p
}

func (p *peer) close() {
	_ = p.in.Close()
	_ = p.cmd.Wait()
}

// call sends one request and waits for its reply.
func (p *peer) call(b *testing.B, req map[string]any) peerReply {
	b.Helper()
	line, err := json.Marshal(req)
	if err != nil {
		b.Fatalf("encode peer request: %v", err)
	}
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		b.Fatalf("send peer request: %v", err)
	}
	if !p.out.Scan() {
		b.Fatalf("peer exited without a reply to %s: %v", line, p.out.Err())
	}
	var r peerReply
	if err := json.Unmarshal(p.out.Bytes(), &r); err != nil {
		b.Fatalf("decode peer reply %q: %v", p.out.Bytes(), err)
	}
	return r
}

// mustCall is call that fails the benchmark on a peer error.
func (p *peer) mustCall(b *testing.B, req map[string]any) peerReply {
	b.Helper()
	r := p.call(b, req)
	if r.Error != "" {
		b.Fatalf("peer %v: %s", req["op"], r.Error)
	}
	return r
}

// pairs collects interleaved timings: flightd, peer, flightd, peer, ...
type pairs struct {
	ours, theirs []time.Duration
}

func (p *pairs) add(ours, theirs time.Duration) {
	p.ours = append(p.ours, ours)
	p.theirs = append(p.theirs, theirs)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// report records the medians and their ratio (flightd / peer) as benchmark metrics, and
// makes ns/op the flightd median (not the sum of both sides the loop took).
func (p *pairs) report(b *testing.B, peerName string) {
	b.Helper()
	mo, mt := median(p.ours), median(p.theirs)
	b.ReportMetric(float64(mo.Nanoseconds()), "ns/op")
	b.ReportMetric(mo.Seconds()*1e3, "flightd-ms")
	b.ReportMetric(mt.Seconds()*1e3, peerName+"-ms")
	if mt > 0 {
		b.ReportMetric(mo.Seconds()/mt.Seconds(), "ratio-vs-"+peerName)
	}
	b.Logf("n=%d flightd=%v %s=%v (medians; all flightd %v; all %s %v)",
		len(p.ours), mo, peerName, mt, p.ours, peerName, p.theirs)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func itoa(n int) string { return strconv.Itoa(n) }
