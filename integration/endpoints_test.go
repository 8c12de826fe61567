package integration

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestMultiEndpointFetch checks that a scan query is split into one endpoint per shard of
// fragments, that fetching the endpoints in parallel gives exactly the rows of the query, and
// that plans that cannot be split keep one endpoint.
func TestMultiEndpointFetch(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{MaxEndpoints: 4})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	const sql = "SELECT a, b FROM t WHERE a > 100"
	info, err := cl.Execute(ctx, sql)
	require.NoError(t, err)
	require.Len(t, info.Endpoint, 2, "the table has two fragments")

	// Fetch every endpoint at once, as a parallel client does.
	parts := make([]itest.Result, len(info.Endpoint))
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
			parts[i] = itest.ToResult(rdr.Schema(), batches)
			for _, b := range batches {
				b.Release()
			}
			errs[i] = rdr.Err()
		}()
	}
	wg.Wait()
	var all itest.Result
	for i, p := range parts {
		require.NoError(t, errs[i])
		require.NotEmpty(t, p.Rows, "endpoint %d returned nothing", i)
		all.Names = p.Names
		all.Rows = append(all.Rows, p.Rows...)
	}
	require.Equal(t, itest.Oracle(t, root, sql).Sorted().String(), all.Sorted().String())

	for _, q := range []string{"SELECT count(*) FROM t", "SELECT a FROM t ORDER BY a LIMIT 3", "SELECT a FROM t LIMIT 3"} {
		info, err := cl.Execute(ctx, q)
		require.NoError(t, err)
		require.Len(t, info.Endpoint, 1, q)
	}
}
