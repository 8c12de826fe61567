package flightsrv

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestCallLogOrderAndClose: the call log writes records in the order calls end, with the
// duration and fields they ended with; close writes every queued record before it returns;
// a call ending after close writes its record itself; records below the logger's level are
// dropped before they are queued.
func TestCallLogOrderAndClose(t *testing.T) {
	var logs syncBuffer
	cl := newCallLog(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	cl.start()
	const n = 3 * callLogQueue // more than the queue holds: senders wait for room
	for i := range n {
		c := &callInfo{method: fmt.Sprintf("m%d", i), rows: int64(i + 1)}
		cl.end(c, nil, time.Duration(i)*time.Millisecond)
	}
	cl.end(&callInfo{method: "bad"}, status.Error(codes.InvalidArgument, "nope"), time.Second)
	cl.close()
	recs := logs.records(t)
	require.Len(t, recs, n+1, "close returns once every queued record is written")
	for i, r := range recs[:n] {
		require.Equal(t, fmt.Sprintf("m%d", i), r["method"])
		require.EqualValues(t, i+1, r["rows"])
		require.EqualValues(t, time.Duration(i)*time.Millisecond, r["duration"])
		require.Equal(t, "INFO", r["level"])
	}
	require.Equal(t, "WARN", recs[n]["level"])
	require.Equal(t, "InvalidArgument", recs[n]["code"])
	require.Equal(t, "nope", recs[n]["error"])

	cl.end(&callInfo{method: "late"}, nil, 0)
	recs = logs.records(t)
	require.Len(t, recs, n+2, "a call ending after close writes its record at once")
	require.Equal(t, "late", recs[n+1]["method"])
	cl.close() // twice is fine

	var warn syncBuffer
	cw := newCallLog(slog.New(slog.NewJSONHandler(&warn, &slog.HandlerOptions{Level: slog.LevelWarn})))
	cw.start()
	cw.end(&callInfo{method: "ok"}, nil, 0)
	cw.end(&callInfo{method: "cancelled"}, status.Error(codes.Canceled, "bye"), 0)
	cw.end(&callInfo{method: "failed"}, status.Error(codes.Internal, "boom"), 0)
	cw.close()
	recs = warn.records(t)
	require.Len(t, recs, 1)
	require.Equal(t, "failed", recs[0]["method"])
	require.Equal(t, "ERROR", recs[0]["level"])
}
