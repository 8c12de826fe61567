package integration

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

func startReplica(t *testing.T, root string, secret []byte) *server {
	t.Helper()
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem, Secret: secret})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	return &server{addr: addr.String(), mem: mem, stop: fs.Shutdown}
}

// TestTicketsAcrossReplicas plans on one replica and fetches from another: replicas sharing
// the secret serve each other's tickets; a replica with another secret, and a damaged
// ticket, are refused.
func TestTicketsAcrossReplicas(t *testing.T) {
	root := writeTables(t)
	shared := []byte("replica secret")
	a, b := startReplica(t, root, shared), startReplica(t, root, shared)
	other := startReplica(t, root, []byte("someone else"))
	for _, s := range []*server{a, b, other} {
		defer s.mem.AssertSize(t, 0)
		defer s.stop()
	}
	ctx := context.Background()
	dial := func(s *server) *flightsql.Client {
		cl, err := flightsql.NewClient(s.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		return cl
	}
	ca, cb, co := dial(a), dial(b), dial(other)
	defer ca.Close()
	defer cb.Close()
	defer co.Close()

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
