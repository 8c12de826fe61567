package flightsrv

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestCancelFlightInfo cancels a statement whose stream is running: the stream ends with
// CANCELLED, a later DoGet of its ticket is refused, other statements are unaffected; the
// deprecated CancelQuery action works the same way.
func TestCancelFlightInfo(t *testing.T) {
	ts := startTestServer(t, 2000, Config{})
	cl := ts.dial(t)
	ctx := context.Background()

	for _, legacy := range []bool{false, true} {
		info, err := cl.Execute(ctx, bigQuery)
		require.NoError(t, err)
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		require.True(t, rdr.Next(), "the first batch arrives")
		require.Eventually(t, func() bool { return ts.srv.queries.running() == 1 }, 5*time.Second, time.Millisecond)

		if legacy {
			res, err := cl.CancelQuery(ctx, info) //nolint:staticcheck // the deprecated action must keep working
			require.NoError(t, err)
			require.Equal(t, flightsql.CancelResultCancelled, res)
		} else {
			res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
			require.NoError(t, err)
			require.Equal(t, flight.CancelStatusCancelled, res.GetStatus())
		}
		for rdr.Next() {
		}
		require.Equal(t, codes.Canceled, status.Code(rdr.Err()), "%v", rdr.Err())
		require.Contains(t, rdr.Err().Error(), "CancelFlightInfo")
		rdr.Release()

		// The cancelled statement's ticket is refused from now on.
		rdr, err = cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		require.Equal(t, codes.Canceled, status.Code(err), "%v", err)
		require.Eventually(t, func() bool { return ts.srv.queries.running() == 0 }, 5*time.Second, time.Millisecond)
	}

	n, err := count(ctx, t, cl, "SELECT x FROM t WHERE x < 10")
	require.NoError(t, err)
	require.Equal(t, int64(10), n, "other statements still run")
}

// TestCancelFlightInfoStatuses covers what is not a running statement: a finished one
// (CANCELLED: its tickets are refused afterwards), a metadata result (NOT_CANCELLABLE), a
// forged ticket and an empty FlightInfo (INVALID_ARGUMENT).
func TestCancelFlightInfoStatuses(t *testing.T) {
	ts := startTestServer(t, 10, Config{})
	cl := ts.dial(t)
	ctx := context.Background()

	done, err := cl.Execute(ctx, "SELECT x FROM t")
	require.NoError(t, err)
	meta, err := cl.GetCatalogs(ctx)
	require.NoError(t, err)
	forged := &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: append([]byte(nil), done.Endpoint[0].Ticket.Ticket...)}}}}
	tk := forged.Endpoint[0].Ticket.Ticket
	tk[len(tk)-1] ^= 1

	cases := []struct {
		name string
		info *flight.FlightInfo
		want flight.CancelStatus
		code codes.Code
	}{
		{"finished statement", done, flight.CancelStatusCancelled, codes.OK},
		{"metadata", meta, flight.CancelStatusNotCancellable, codes.OK},
		{"forged ticket", forged, 0, codes.InvalidArgument},
		{"no endpoints", &flight.FlightInfo{}, 0, codes.InvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: tc.info})
			require.Equal(t, tc.code, status.Code(err), "%v", err)
			if tc.code == codes.OK {
				require.Equal(t, tc.want, res.GetStatus())
			}
		})
	}
	_, err = count(ctx, t, cl, "SELECT x FROM t")
	require.NoError(t, err, "a new statement with the same SQL is a new query")
}
