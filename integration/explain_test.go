package integration

import (
	"context"
	"testing"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/status"
)

// TestExplainOverFlight runs EXPLAIN and EXPLAIN ANALYZE from a plain Flight SQL client: the
// plan shows the filter and projection inside the scan, and the profile shows rows per operator.
func TestExplainOverFlight(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	got, err := itest.Query(ctx, t, cl, "EXPLAIN SELECT a FROM t WHERE c > 5")
	require.NoError(t, err)
	require.Equal(t, []string{"explain_key", "explain_value"}, got.Names)
	require.Len(t, got.Rows, 1)
	require.Equal(t, "physical_plan", got.Rows[0][0])
	require.Regexp(t, `Scan: t version=2 columns=\[a#0, c#\d\].*filter=gt\(c#1`, got.Rows[0][1])

	got, err = itest.Query(ctx, t, cl, "EXPLAIN ANALYZE SELECT b, count(*) FROM t WHERE a > 5 GROUP BY b")
	require.NoError(t, err)
	require.Len(t, got.Rows, 1)
	require.Equal(t, "analyzed_plan", got.Rows[0][0])
	require.Regexp(t, `rows=50\b`, got.Rows[0][1], "the aggregate outputs one row per value of b")

	// A filter on one of the two columns read: the scan reads c first (late materialization).
	got, err = itest.Query(ctx, t, cl, "EXPLAIN ANALYZE SELECT a FROM t WHERE c > 5")
	require.NoError(t, err)
	require.Len(t, got.Rows, 1)
	require.Regexp(t, `Scan: t .*\[late materialization offered: filter reads 1 of 2 columns first\]`, got.Rows[0][1])
}

// TestLateFilterErrors: a filter's own errors read the same (message and code) whether the
// Lance reader evaluated the filter first (late materialization) or the scan did.
func TestLateFilterErrors(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	const bad = "CAST(CASE WHEN c = 7 THEN 'x' ELSE '1' END AS INTEGER) = 1"
	_, lateErr := itest.Query(ctx, t, cl, "SELECT a FROM t WHERE "+bad)
	require.Error(t, lateErr)
	_, plainErr := itest.Query(ctx, t, cl, "SELECT c FROM t WHERE "+bad)
	require.Error(t, plainErr)
	require.Equal(t, status.Convert(plainErr).Message(), status.Convert(lateErr).Message())
	require.Equal(t, status.Code(plainErr), status.Code(lateErr))
}
