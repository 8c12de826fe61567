package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestTicketsAcrossReplicas plans on one replica and fetches from another: replicas sharing
// the secret serve each other's tickets; a replica with another secret, and a damaged
// ticket, are refused.
func TestTicketsAcrossReplicas(t *testing.T) {
	root := itest.WriteTables(t)
	shared := []byte("replica secret")
	a := itest.StartServer(t, root, flightsrv.Config{Secret: shared})
	b := itest.StartServer(t, root, flightsrv.Config{Secret: shared})
	other := itest.StartServer(t, root, flightsrv.Config{Secret: []byte("someone else")})
	ctx := context.Background()
	ca, cb, co := itest.Dial(t, a.Addr), itest.Dial(t, b.Addr), itest.Dial(t, other.Addr)

	info, err := ca.Execute(ctx, "SELECT count(*) FROM t")
	require.NoError(t, err)
	ticket := info.Endpoint[0].Ticket

	rdr, err := cb.DoGet(ctx, ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	require.Equal(t, "1000", rdr.RecordBatch().Column(0).ValueStr(0))
	rdr.Release()

	refused := func(cl *flightsql.Client, tk *flight.Ticket) {
		t.Helper()
		rdr, err := cl.DoGet(ctx, tk)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	}
	refused(co, ticket)

	// Damage the plan inside the ticket: the signature no longer matches.
	forged := append([]byte(nil), ticket.Ticket...)
	forged[len(forged)-40] ^= 0xff
	refused(cb, &flight.Ticket{Ticket: forged})
}
