package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestClientHangsUpMidStream reads one batch of a large result and hangs up, as DBeaver's
// preview does, many times: the server must free everything (the checked allocator is
// asserted at zero when the server stops) and keep serving.
func TestClientHangsUpMidStream(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	const big = "SELECT t1.a, t1.b, t2.c FROM t t1 CROSS JOIN t t2" // a million rows

	for range 8 {
		ctx, cancel := context.WithCancel(context.Background())
		info, err := cl.Execute(ctx, big)
		require.NoError(t, err)
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		require.True(t, rdr.Next(), "the first batch arrives")
		cancel()
		rdr.Release()
	}
	time.Sleep(100 * time.Millisecond) // let the server notice the cancellations

	got, err := itest.Query(context.Background(), t, cl, "SELECT count(*) FROM t")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1000"}}, got.Rows)
}
