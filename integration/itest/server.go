package itest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// Server is an in-process flightd on 127.0.0.1:0 whose every Arrow allocation is checked.
type Server struct {
	Addr string
	Mem  *memory.CheckedAllocator
	stop func()
}

// StartServer serves the Lance tables under root with cfg (Catalog and Mem are filled in).
// The server stops, and its allocator must be back at zero, when the test ends.
func StartServer(t *testing.T, root string, cfg flightsrv.Config) *Server {
	t.Helper()
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cfg.Catalog, cfg.Mem = lancecat.New(store), mem
	srv, err := flightsrv.New(cfg)
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	s := &Server{Addr: addr.String(), Mem: mem, stop: fs.Shutdown}
	t.Cleanup(func() {
		s.stop()
		mem.AssertSize(t, 0)
	})
	return s
}

// Dial connects arrow-go's Flight SQL client to addr in plaintext; it is closed when the test
// ends.
func Dial(t *testing.T, addr string, opts ...grpc.DialOption) *flightsql.Client {
	t.Helper()
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	cl, err := flightsql.NewClient(addr, nil, nil, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// Query runs sql through the client (Execute, then DoGet on every endpoint in order) under a
// checked allocator, and returns the rendered result.
func Query(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string) (Result, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return Result{}, err
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return Result{}, err
		}
		sc = rdr.Schema()
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return Result{}, err
		}
	}
	return ToResult(sc, batches), nil
}
