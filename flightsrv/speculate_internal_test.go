package flightsrv

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// fetchSum redeems a ticket and returns the number of rows and the sum of column 0 (int64),
// or the error the stream ended with.
func fetchSum(ctx context.Context, t *testing.T, cl *flightsql.Client, tk *flight.Ticket) (n, sum int64, err error) {
	t.Helper()
	rdr, err := cl.DoGet(ctx, tk)
	if err != nil {
		return 0, 0, err
	}
	defer rdr.Release()
	for rdr.Next() {
		col := rdr.RecordBatch().Column(0).(*array.Int64)
		for i := range col.Len() {
			sum += col.Value(i)
		}
		n += int64(col.Len())
	}
	return n, sum, rdr.Err()
}

// A statement starts at GetFlightInfo; its DoGet streams that run, and a second DoGet of the
// same ticket runs it again with the same result. Statements that fail while running fail the
// same way both times.
func TestSpeculativeRunRedeemed(t *testing.T) {
	ts := startTestServer(t, 3000, Config{})
	cl := ts.dial(t)
	ctx := context.Background()
	cases := []struct {
		sql       string
		rows, sum int64
		fails     bool
	}{
		{"SELECT x FROM t WHERE x % 3 = 0", 1000, 1000 * 2997 / 2, false},
		{"SELECT a.x FROM t a CROSS JOIN t b WHERE b.x < 2", 6000, 2 * 3000 * 2999 / 2, false},
		{"SELECT count(*) FROM t", 1, 3000, false},
		{"SELECT CAST(CAST(x AS VARCHAR) || 'z' AS BIGINT) FROM t", 0, 0, true},
		// The first batch (rows 0-255) succeeds; the batch the run reads ahead fails.
		{"SELECT CAST(CASE WHEN x < 300 THEN '1' ELSE 'z' END AS BIGINT) FROM t", 0, 0, true},
		// One row, then the end of the result, which the run also reads ahead.
		{"SELECT x FROM t WHERE x = 2024", 1, 2024, false},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			taken := ts.srv.spec.taken.Load()
			info, err := cl.Execute(ctx, c.sql)
			require.NoError(t, err)
			require.Len(t, info.Endpoint, 1)
			n1, s1, err1 := fetchSum(ctx, t, cl, info.Endpoint[0].Ticket)
			require.Equal(t, taken+1, ts.srv.spec.taken.Load(), "the DoGet redeemed the speculative run")
			n2, s2, err2 := fetchSum(ctx, t, cl, info.Endpoint[0].Ticket)
			require.Equal(t, taken+1, ts.srv.spec.taken.Load(), "the second DoGet ran the statement itself")
			if c.fails {
				require.Error(t, err1)
				require.Error(t, err2)
				require.Equal(t, status.Code(err2), status.Code(err1))
				require.Equal(t, status.Convert(err2).Message(), status.Convert(err1).Message())
				return
			}
			require.NoError(t, err1)
			require.NoError(t, err2)
			require.Equal(t, []int64{c.rows, c.sum}, []int64{n1, s1})
			require.Equal(t, []int64{c.rows, c.sum}, []int64{n2, s2})
		})
	}
}

// A DoGet whose ticket differs from the one GetFlightInfo issued in any byte of its signed
// handle does not redeem the speculative run: it is verified (and refused) as usual, and the
// issued ticket still redeems the run.
func TestSpeculativeRunTamperedTicket(t *testing.T) {
	ts := startTestServer(t, 3000, Config{})
	cl := ts.dial(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, "SELECT x FROM t WHERE x < 10")
	require.NoError(t, err)
	var msg anypb.Any
	require.NoError(t, proto.Unmarshal(info.Endpoint[0].Ticket.GetTicket(), &msg))
	var cmd pb.TicketStatementQuery
	require.NoError(t, msg.UnmarshalTo(&cmd))
	handle := cmd.GetStatementHandle()
	fast, ok := statementHandle(info.Endpoint[0].Ticket.GetTicket())
	require.True(t, ok, "an issued ticket is read without reflection")
	require.Equal(t, handle, fast)
	for _, other := range [][]byte{nil, []byte("x"), info.Endpoint[0].Ticket.GetTicket()[1:],
		append(bytes.Clone(info.Endpoint[0].Ticket.GetTicket()), 0)} {
		_, ok := statementHandle(other)
		require.False(t, ok, "%q", other)
	}
	for _, i := range []int{0, len(handle) / 2, len(handle) - 1} {
		bad := bytes.Clone(handle)
		bad[i] ^= 1
		tk, err := flightsql.CreateStatementQueryTicket(bad)
		require.NoError(t, err)
		_, _, err = fetchSum(ctx, t, cl, &flight.Ticket{Ticket: tk})
		require.Error(t, err, "byte %d changed", i)
		require.Zero(t, ts.srv.spec.taken.Load())
	}
	n, sum, err := fetchSum(ctx, t, cl, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.Equal(t, []int64{10, 45}, []int64{n, sum})
	require.Equal(t, int64(1), ts.srv.spec.taken.Load())
	ts.srv.spec.mu.Lock()
	defer ts.srv.spec.mu.Unlock()
	require.Empty(t, ts.srv.spec.runs)
	require.Empty(t, ts.srv.spec.handles)
}

// Speculative runs nobody redeems are cancelled after their TTL, by CancelFlightInfo, or
// when the server stops (startTestServer's cleanup checks every batch was released); at
// most maxSpeculative wait at a time; EXPLAIN ANALYZE and endpoints with locations are not
// started early.
func TestSpeculativeRunBounded(t *testing.T) {
	ctx := context.Background()
	t.Run("ttl", func(t *testing.T) {
		ts := startTestServer(t, 2000, Config{})
		ts.srv.spec.mu.Lock()
		ts.srv.spec.ttl = 20 * time.Millisecond
		ts.srv.spec.mu.Unlock()
		cl := ts.dial(t)
		info, err := cl.Execute(ctx, bigQuery)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return ts.srv.spec.abandoned.Load() == 1 }, 5*time.Second, time.Millisecond)
		n, _, err := fetchSum(ctx, t, cl, info.Endpoint[0].Ticket) // runs it again
		require.NoError(t, err)
		require.Equal(t, int64(2000*2000), n)
		require.Zero(t, ts.srv.spec.taken.Load())
	})
	t.Run("cancelled", func(t *testing.T) {
		ts := startTestServer(t, 2000, Config{})
		cl := ts.dial(t)
		info, err := cl.Execute(ctx, bigQuery)
		require.NoError(t, err)
		res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
		require.NoError(t, err)
		require.Equal(t, flight.CancelStatusCancelled, res.GetStatus())
		require.Equal(t, int64(1), ts.srv.spec.abandoned.Load())
		_, _, err = fetchSum(ctx, t, cl, info.Endpoint[0].Ticket)
		require.Equal(t, codes.Canceled, status.Code(err), "%v", err)
	})
	t.Run("full, then stopped", func(t *testing.T) {
		ts := startTestServer(t, 2000, Config{})
		cl := ts.dial(t)
		for range maxSpeculative + 3 {
			_, err := cl.Execute(ctx, bigQuery)
			require.NoError(t, err)
		}
		require.Equal(t, int64(maxSpeculative), ts.srv.spec.started.Load())
	})
	t.Run("not started", func(t *testing.T) {
		ts := startTestServer(t, 100, Config{Locations: []string{"grpc://127.0.0.1:1"}})
		cl := ts.dial(t)
		_, err := cl.Execute(ctx, "SELECT x FROM t")
		require.NoError(t, err)
		ts2 := startTestServer(t, 100, Config{})
		cl2 := ts2.dial(t)
		info, err := cl2.Execute(ctx, "EXPLAIN ANALYZE SELECT x FROM t")
		require.NoError(t, err)
		require.Zero(t, ts.srv.spec.started.Load()+ts2.srv.spec.started.Load())
		rdr, err := cl2.DoGet(ctx, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		for rdr.Next() {
		}
		require.NoError(t, rdr.Err())
		rdr.Release()
	})
	t.Run("turned off", func(t *testing.T) {
		ts := startTestServer(t, 3000, Config{NoSpeculation: true})
		require.Nil(t, ts.srv.spec)
		cl := ts.dial(t)
		info, err := cl.Execute(ctx, "SELECT x FROM t WHERE x % 3 = 0")
		require.NoError(t, err)
		n, sum, err := fetchSum(ctx, t, cl, info.Endpoint[0].Ticket)
		require.NoError(t, err)
		require.Equal(t, []int64{1000, 1000 * 2997 / 2}, []int64{n, sum})
	})
}
