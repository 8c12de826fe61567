package integration

import (
	"context"
	"path/filepath"
	"sync"
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

// TestMultiEndpointFetch checks that a scan query is split into one endpoint per shard of
// fragments, that fetching the endpoints in parallel gives exactly the rows of the query, and
// that plans that cannot be split keep one endpoint.
func TestMultiEndpointFetch(t *testing.T) {
	root := writeTables(t)
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem, MaxEndpoints: 4})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer fs.Shutdown()

	ctx := context.Background()
	cl, err := flightsql.NewClient(addr.String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	const sql = "SELECT a, b FROM t WHERE a > 100"
	info, err := cl.Execute(ctx, sql)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 2, "the table has two fragments")

	// Fetch every endpoint at once, as a parallel client does.
	parts := make([]result, len(info.Endpoint))
	var wg sync.WaitGroup
	errs := make([]error, len(info.Endpoint))
	for i, ep := range info.Endpoint {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rdr, err := cl.DoGet(ctx, ep.Ticket)
			if err != nil {
				errs[i] = err
				return
			}
			defer rdr.Release()
			var batches []arrow.RecordBatch
			for rdr.Next() {
				b := rdr.RecordBatch()
				b.Retain()
				batches = append(batches, b)
			}
			parts[i] = toResult(rdr.Schema(), batches)
			for _, b := range batches {
				b.Release()
			}
			errs[i] = rdr.Err()
		}()
	}
	wg.Wait()
	var all result
	for i, p := range parts {
		require.NoError(t, errs[i])
		require.NotEmpty(t, p.Rows, "endpoint %d returned nothing", i)
		all.Names = p.Names
		all.Rows = append(all.Rows, p.Rows...)
	}
	require.Equal(t, oracle(t, root, sql).sorted().String(), all.sorted().String())

	for _, q := range []string{"SELECT count(*) FROM t", "SELECT a FROM t ORDER BY a LIMIT 3", "SELECT a FROM t LIMIT 3"} {
		info, err := cl.Execute(ctx, q)
		require.NoError(t, err)
		require.Len(t, info.Endpoint, 1, q)
	}
}
