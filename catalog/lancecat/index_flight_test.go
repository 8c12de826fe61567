package lancecat_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// Over Flight SQL (several endpoints, so the optimized plan travels in tickets): an index
// query returns the right rows, and EXPLAIN / EXPLAIN ANALYZE show the index.
func TestIndexOverFlight(t *testing.T) {
	dir, _ := indexTables(t)
	srv := itest.StartServer(t, dir, flightsrv.Config{MaxEndpoints: 4})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()

	// First, while the server's data cache is cold, the scan reads its pages (read=); run
	// again, it takes them from the cache (cached=, and no read=: hits are not reads).
	res, err := itest.Query(ctx, t, cl, "EXPLAIN ANALYZE SELECT u FROM ix WHERE u = 7000")
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	require.Regexp(t, `index: u_idx \(BTree\) on u, fragments 2 of 4, rows 1001 of 10000, table [0-9.]+ KiB .*rows=1 .*read=`, res.Rows[0][1])
	res, err = itest.Query(ctx, t, cl, "EXPLAIN ANALYZE SELECT u FROM ix WHERE u = 7000")
	require.NoError(t, err)
	require.Regexp(t, `index: u_idx .*rows=1 .*cached=[0-9.]+ [KM]?i?B`, res.Rows[0][1])
	require.NotContains(t, res.Rows[0][1], "read=")

	res, err = itest.Query(ctx, t, cl, "SELECT u FROM ix WHERE u IN (1, 2503, 7000, 12001) OR s = 'nope' ORDER BY u")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1"}, {"7000"}, {"12001"}}, res.Rows)

	res, err = itest.Query(ctx, t, cl, "SELECT count(*) FROM ix WHERE s = 'v004'")
	require.NoError(t, err)
	want, err := itest.Query(ctx, t, cl, "SELECT count(*) FROM plain WHERE s = 'v004'")
	require.NoError(t, err)
	require.Equal(t, want.Rows, res.Rows)
	require.NotEqual(t, [][]string{{"0"}}, res.Rows)

	res, err = itest.Query(ctx, t, cl, "EXPLAIN SELECT u FROM ix WHERE u = 7000")
	require.NoError(t, err)
	require.Len(t, res.Rows, 1)
	require.Contains(t, res.Rows[0][1], "index: u_idx (BTree) on u, fragments 2 of 4, rows 1001 of 10000, table ")

}
