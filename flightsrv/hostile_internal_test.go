package flightsrv

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestHostileRequests sends malformed and oversized requests: each gets a clear status and
// the server keeps serving (goleak in TestMain and the checked allocator at cleanup check
// that nothing leaks). Clients that hang up mid-stream are covered by
// integration/cancel_test.go.
func TestHostileRequests(t *testing.T) {
	ts := startTestServer(t, 100, Config{MaxRecvMsgSize: 1 << 20})
	cl := ts.dial(t)
	ctx := context.Background()

	cmd := func(typeURL string, value []byte) []byte {
		b, err := proto.Marshal(&anypb.Any{TypeUrl: typeURL, Value: value})
		require.NoError(t, err)
		return b
	}
	const stmtURL = "type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
	infoOf := func(c []byte) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := cl.Client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: c})
			return err
		}
	}
	doGet := func(ticket []byte) func(context.Context) error {
		return func(ctx context.Context) error {
			s, err := cl.Client.DoGet(ctx, &flight.Ticket{Ticket: ticket})
			if err != nil {
				return err
			}
			for {
				if _, err := s.Recv(); err != nil {
					return err
				}
			}
		}
	}
	cases := []struct {
		name string
		call func(context.Context) error
		code codes.Code
		msg  string
	}{
		{"command not an Any", infoOf([]byte{0xff, 0xff, 0xff}), codes.InvalidArgument, ""},
		{"malformed command in Any", infoOf(cmd(stmtURL, []byte{0x0a, 0xff, 0x01})), codes.InvalidArgument, ""},
		{"unknown command type", infoOf(cmd("type.googleapis.com/no.such.Command", []byte("x"))), codes.InvalidArgument, ""},
		{"path descriptor", func(ctx context.Context) error {
			_, err := cl.Client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{"t"}})
			return err
		}, codes.InvalidArgument, ""},
		{"garbage ticket", doGet([]byte("not a ticket")), codes.InvalidArgument, ""},
		{"statement ticket not issued by flightd", doGet(func() []byte {
			b, err := proto.Marshal(&pb.TicketStatementQuery{StatementHandle: []byte("SELECT 1")})
			require.NoError(t, err)
			return cmd("type.googleapis.com/arrow.flight.protocol.sql.TicketStatementQuery", b)
		}()), codes.InvalidArgument, "not issued by flightd"},
		{"oversized request", func(ctx context.Context) error {
			_, err := cl.Execute(ctx, "SELECT '"+strings.Repeat("x", 2<<20)+"'")
			return err
		}, codes.ResourceExhausted, ""},
		{"malformed session cookie", func(ctx context.Context) error {
			ctx = metadata.AppendToOutgoingContext(ctx, "cookie", "arrow_flight_session=!!!")
			_, err := cl.Execute(ctx, "SELECT 1")
			return err
		}, codes.InvalidArgument, "session cookie"},
		{"unknown action", func(ctx context.Context) error {
			s, err := cl.Client.DoAction(ctx, &flight.Action{Type: "Frobnicate"})
			if err == nil {
				_, err = s.Recv()
			}
			return err
		}, codes.InvalidArgument, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(ctx)
			require.Equal(t, tc.code, status.Code(err), "%v", err)
			require.Contains(t, status.Convert(err).Message(), tc.msg)
			n, err := count(ctx, t, cl, "SELECT x FROM t")
			require.NoError(t, err, "the server keeps serving")
			require.Equal(t, int64(100), n)
		})
	}
}

// TestSlowReaderDoesNotBlockOthers reads a large result slowly while other clients query:
// the slow reader gets every row, the others are served meanwhile.
func TestSlowReaderDoesNotBlockOthers(t *testing.T) {
	ts := startTestServer(t, 300, Config{})
	slow := ts.dial(t)
	ctx := context.Background()
	info, err := slow.Execute(ctx, bigQuery)
	require.NoError(t, err)
	rdr, err := slow.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()

	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		cl := ts.dial(t)
		wg.Go(func() {
			for range 5 {
				n, err := count(ctx, t, cl, "SELECT x FROM t WHERE x < 7") // count calls no require
				if err == nil && n != 7 {
					err = status.Errorf(codes.Internal, "got %d rows", n)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var rows int64
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
		time.Sleep(time.Millisecond)
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, int64(300*300), rows)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
