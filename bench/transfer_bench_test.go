package bench

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/flightsrv"
)

// transferSQL is the large result of the transfer benchmark: every lineitem row and column.
const transferSQL = "SELECT * FROM lineitem"

// syntheticTicket is the only ticket the synthetic server serves.
var syntheticTicket = []byte("batches")

// syntheticServer serves fixed in-memory batches on DoGet: the transport ceiling.
type syntheticServer struct {
	flight.BaseFlightServer
	schema  *arrow.Schema
	batches []arrow.RecordBatch
}

// DoGet streams the batches with the same default IPC options flightd's server uses.
func (s *syntheticServer) DoGet(tkt *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	if string(tkt.Ticket) != string(syntheticTicket) {
		return fmt.Errorf("unknown ticket %q", tkt.Ticket)
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(s.schema))
	defer w.Close()
	for _, b := range s.batches {
		if err := w.Write(b); err != nil {
			return fmt.Errorf("write batch: %w", err)
		}
	}
	return nil
}

// fetchBatches runs sql against flightd with arrow-go's Flight SQL client and keeps the
// batches exactly as the server sent them; the caller releases them.
func fetchBatches(ctx context.Context, b *testing.B, addr, sql string, mem memory.Allocator) (*arrow.Schema, []arrow.RecordBatch) {
	b.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		b.Fatal(err)
	}
	var sc *arrow.Schema
	var out []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			b.Fatal(err)
		}
		sc = rdr.Schema()
		for rdr.Next() {
			rec := rdr.RecordBatch()
			rec.Retain()
			out = append(out, rec)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
	return sc, out
}

// startSynthetic serves batches from a plain Flight server on 127.0.0.1:0.
func startSynthetic(b *testing.B, sc *arrow.Schema, batches []arrow.RecordBatch) string {
	b.Helper()
	s := flight.NewServerWithMiddleware(nil, flightsrv.ServerOptions()...)
	if err := s.Init("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	s.RegisterFlightService(&syntheticServer{schema: sc, batches: batches})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Serve()
	}()
	b.Cleanup(func() {
		s.Shutdown()
		<-done
	})
	return s.Addr().String()
}

// BenchmarkFlightTransfer: the whole of TPC-H lineitem as one Flight SQL result from flightd
// (one endpoint: scan, encode and send) to a pyarrow.flight client, vs a synthetic Flight
// server's DoGet of the very batches flightd sent, held in memory (the transport ceiling),
// interleaved. The recorded figure is throughput-ratio = ceiling time / flightd time
// (flightd's share of the ceiling's throughput); target ≥ 0.8.
func BenchmarkFlightTransfer(b *testing.B) {
	ctx := context.Background()
	addr := startFlightd(b, filepath.Join(tpchData(b), "lance"), 1)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	sc, batches := fetchBatches(ctx, b, addr, transferSQL, mem)
	defer func() {
		for _, rec := range batches {
			rec.Release()
		}
	}()
	var rows int64
	for _, rec := range batches {
		rows += rec.NumRows()
	}
	synth := startSynthetic(b, sc, batches)
	p := startPeer(b)
	tkt := hex.EncodeToString(syntheticTicket)
	var ps pairs
	var cpu transferCPU
	var nbytes int64
	for b.Loop() {
		ours := cpu.measure(p, &cpu.ours, func() peerReply {
			return p.mustCall(b, map[string]any{"op": "flightsql", "addr": addr, "sql": transferSQL})
		})
		ceil := cpu.measure(p, &cpu.theirs, func() peerReply {
			return p.mustCall(b, map[string]any{"op": "flight_doget", "addr": synth, "ticket": tkt})
		})
		if ours.Rows != rows || ceil.Rows != rows {
			b.Fatalf("rows: flightd %d, synthetic %d, want %d", ours.Rows, ceil.Rows, rows)
		}
		nbytes = ceil.Bytes
		ps.add(seconds(ours.Seconds), seconds(ceil.Seconds))
	}
	ps.report(b, "synthetic")
	mo, mt := median(ps.ours), median(ps.theirs)
	b.ReportMetric(mt.Seconds()/mo.Seconds(), "throughput-ratio")
	b.ReportMetric(float64(nbytes)/mo.Seconds()/1e6, "flightd-MB/s")
	b.ReportMetric(float64(nbytes)/mt.Seconds()/1e6, "synthetic-MB/s")
	cpu.report(b)
}

// transferCPU collects the CPU time (user + system, from /proc) each side of the transfer
// used per call: the server (this process: flightd or the synthetic server, whichever is
// serving) and the client (the Python peer). On two cores both compete for the same CPUs,
// so these show what a transfer costs independently of the machine's load.
type transferCPU struct {
	ours, theirs transferSide
	missing      bool // /proc is not readable: no CPU metrics
}

// transferSide is what each call of one side cost: CPU of the serving process and of the
// client, and the serving process's minor page faults (fresh memory touched: each costs
// kernel time, so a server that allocates and frees more per transfer pays in CPU).
type transferSide struct {
	server, client []time.Duration
	faults         []int64
}

// measure runs call and adds the CPU each process used during it to side.
func (c *transferCPU) measure(p *peer, side *transferSide, call func() peerReply) peerReply {
	f0 := procFaults()
	s0, e0 := procCPU("self")
	c0, e1 := procCPU(strconv.Itoa(p.cmd.Process.Pid))
	r := call()
	s1, e2 := procCPU("self")
	c1, e3 := procCPU(strconv.Itoa(p.cmd.Process.Pid))
	side.faults = append(side.faults, procFaults()-f0)
	if e0 != nil || e1 != nil || e2 != nil || e3 != nil {
		c.missing = true
		return r
	}
	side.server = append(side.server, s1-s0)
	side.client = append(side.client, c1-c0)
	return r
}

// report records the median CPU per transfer of each process for each side.
func (c *transferCPU) report(b *testing.B) {
	if c.missing || len(c.ours.server) == 0 {
		return
	}
	ms := func(ds []time.Duration) float64 { return median(ds).Seconds() * 1e3 }
	b.ReportMetric(ms(c.ours.server), "flightd-cpu-ms")
	b.ReportMetric(ms(c.ours.client), "flightd-client-cpu-ms")
	b.ReportMetric(ms(c.theirs.server), "synthetic-cpu-ms")
	b.ReportMetric(ms(c.theirs.client), "synthetic-client-cpu-ms")
	b.ReportMetric(float64(medianInt(c.ours.faults)), "flightd-minor-faults")
	b.ReportMetric(float64(medianInt(c.theirs.faults)), "synthetic-minor-faults")
}

// medianInt is the median of xs (0 for none); xs is sorted in place.
func medianInt(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// procFaults returns this process's minor page faults so far (0 if /proc is not readable):
// each is a page of fresh memory touched for the first time.
func procFaults() int64 {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 8 {
		return 0
	}
	n, _ := strconv.ParseInt(f[7], 10, 64)
	return n
}

// procCPU reads the user + system CPU time of process pid ("self" for this one) from
// /proc/<pid>/stat, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
func procCPU(pid string) (time.Duration, error) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read cpu time of %s: %w", pid, err)
	}
	// Fields after the parenthesized command name: state is field 3, utime 14, stime 15.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("parse %s/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse %s/stat: %q %q", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// BenchmarkFlightTransferServer is BenchmarkFlightTransfer's flightd side alone (no
// synthetic server in the process), for profiling the server: with -test.cpuprofile
// every sample is flightd's or the benchmark's bookkeeping.
func BenchmarkFlightTransferServer(b *testing.B) {
	addr := startFlightd(b, filepath.Join(tpchData(b), "lance"), 1)
	p := startPeer(b)
	var cpu transferCPU
	var times []time.Duration
	for b.Loop() {
		r := cpu.measure(p, &cpu.ours, func() peerReply {
			return p.mustCall(b, map[string]any{"op": "flightsql", "addr": addr, "sql": transferSQL})
		})
		times = append(times, seconds(r.Seconds))
	}
	b.ReportMetric(float64(median(times).Milliseconds()), "flightd-ms")
	b.ReportMetric(float64(medianInt(cpu.ours.faults)), "flightd-minor-faults")
	if !cpu.missing && len(cpu.ours.server) > 0 {
		b.ReportMetric(median(cpu.ours.server).Seconds()*1e3, "flightd-cpu-ms")
		b.ReportMetric(median(cpu.ours.client).Seconds()*1e3, "flightd-client-cpu-ms")
	}
}
