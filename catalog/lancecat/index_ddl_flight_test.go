package lancecat_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// Index DDL over Flight SQL: CREATE INDEX through ExecuteUpdate (the count is the rows
// indexed), EXPLAIN shows the index, a query uses it, ALTER INDEX OPTIMIZE sent as a query
// answers one Count row, DROP INDEX removes it; pylance lists what flightd built.
func TestIndexDDLOverFlight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ddlPy(t, "", "make", dir, "2.2")
	srv := itest.StartServer(t, dir, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()

	n, err := cl.ExecuteUpdate(ctx, "CREATE INDEX cat_idx ON t (cat) USING BITMAP")
	require.NoError(t, err)
	require.EqualValues(t, 2700, n)
	_, err = cl.ExecuteUpdate(ctx, "CREATE INDEX cat_idx ON t (cat) USING BITMAP")
	require.ErrorContains(t, err, `Index with name "cat_idx" already exists on table "t"`)

	res, err := itest.Query(ctx, t, cl, "EXPLAIN SELECT id FROM t WHERE cat = 'c03'")
	require.NoError(t, err)
	require.Contains(t, res.Rows[0][1], "index: cat_idx (Bitmap) on cat")
	res, err = itest.Query(ctx, t, cl, "SELECT count(*) FROM t WHERE cat = 'c03'")
	require.NoError(t, err)
	o := pyCheck(t, dir)
	require.Equal(t, []string{"cat_idx"}, o.indexNames())
	require.Contains(t, o.Results["cat = 'c03'"].Plan, "ScalarIndexQuery")
	require.Equal(t, [][]string{{strconv.Itoa(len(o.Results["cat = 'c03'"].Scan))}}, res.Rows)

	ddlPy(t, "", "append", dir)
	res, err = itest.Query(ctx, t, cl, "ALTER INDEX cat_idx OPTIMIZE")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"2000"}}, res.Rows)
	o = pyCheck(t, dir)
	require.Equal(t, []string{"cat_idx", "cat_idx"}, o.indexNames())
	require.Equal(t, o.Results["cat = 'c03'"].Scan, o.Results["cat = 'c03'"].Indexed)

	n, err = cl.ExecuteUpdate(ctx, "DROP INDEX cat_idx ON t")
	require.NoError(t, err)
	require.Zero(t, n)
	o = pyCheck(t, dir)
	require.Empty(t, o.Indices)
}
