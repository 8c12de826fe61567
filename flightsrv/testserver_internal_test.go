package flightsrv

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/catalog/memcat"
)

// testServer is an in-process server over a memcat table t(x int64) with rows 0..rows-1,
// every Arrow allocation checked.
type testServer struct {
	srv  *Server
	fs   flight.Server
	addr string
	mem  *memory.CheckedAllocator
}

// bigQuery streams rows² rows (a cross join), slowly enough to be caught mid-stream.
const bigQuery = "SELECT a.x, b.x AS y FROM t a CROSS JOIN t b"

// startTestServer serves t with cfg (Catalog, Mem and a silent Logger unless set are filled
// in). The server is drained and the allocator checked when the test ends.
func startTestServer(t *testing.T, rows int, cfg Config) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat := memcat.New(memcat.WithMorselRows(256))
	addIntTable(t, cat, mem, rows)

	cfg.Catalog, cfg.Mem = cat, mem
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	ts := &testServer{srv: srv, fs: fs, addr: addr.String(), mem: mem}
	t.Cleanup(func() {
		srv.Drain(fs, 5*time.Second)
		cat.Release()
		mem.AssertSize(t, 0)
	})
	return ts
}

// addIntTable adds (or replaces) the table t(x int64) with rows 0..rows-1 to cat.
func addIntTable(t *testing.T, cat *memcat.Catalog, mem memory.Allocator, rows int) {
	t.Helper()
	b := array.NewInt64Builder(mem)
	for i := range rows {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := array.NewRecordBatch(sc, []arrow.Array{col}, int64(rows))
	col.Release()
	defer batch.Release()
	require.NoError(t, cat.AddTable("t", sc, batch))
}

// dial connects a Flight SQL client, closed when the test ends.
func (ts *testServer) dial(t *testing.T, opts ...grpc.DialOption) *flightsql.Client {
	t.Helper()
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	cl, err := flightsql.NewClient(ts.addr, nil, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cl.Close()) })
	return cl
}

// count runs sql and returns the number of rows it streams back.
func count(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string, opts ...grpc.CallOption) (int64, error) {
	t.Helper()
	info, err := cl.Execute(ctx, sql, opts...)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket, opts...)
		if err != nil {
			return n, err
		}
		for rdr.Next() {
			n += rdr.RecordBatch().NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
