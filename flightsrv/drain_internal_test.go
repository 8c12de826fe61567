package flightsrv

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestDrainLetsShortStreamsFinish: streams that end within the timeout are not cancelled.
func TestDrainLetsShortStreamsFinish(t *testing.T) {
	ts := startTestServer(t, 100, Config{})
	cl := ts.dial(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, "SELECT a.x FROM t a CROSS JOIN t b")
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()

	drained := make(chan int, 1)
	go func() { drained <- ts.srv.Drain(ts.fs, 10*time.Second) }()
	var rows int64
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, int64(100*100), rows, "the running stream finishes")
	require.Equal(t, 0, <-drained)

	_, err = cl.Execute(ctx, "SELECT 1")
	require.Error(t, err, "a drained server accepts no new calls")
}

// TestDrainCancelsSlowReaders: a client reading slowly past the timeout gets UNAVAILABLE
// (server shutting down); one that stopped reading altogether is disconnected.
func TestDrainCancelsSlowReaders(t *testing.T) {
	ts := startTestServer(t, 2000, Config{})
	ctx := context.Background()
	slow, stalled := ts.dial(t), ts.dial(t)

	infoSlow, err := slow.Execute(ctx, bigQuery)
	require.NoError(t, err)
	rSlow, err := slow.DoGet(ctx, infoSlow.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rSlow.Release()
	infoStalled, err := stalled.Execute(ctx, bigQuery)
	require.NoError(t, err)
	rStalled, err := stalled.DoGet(ctx, infoStalled.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rStalled.Release()
	require.True(t, rSlow.Next())
	require.True(t, rStalled.Next())

	start := time.Now()
	drained := make(chan int, 1)
	go func() { drained <- ts.srv.Drain(ts.fs, 300*time.Millisecond) }()
	for rSlow.Next() {
		time.Sleep(5 * time.Millisecond)
	}
	require.Equal(t, codes.Unavailable, status.Code(rSlow.Err()), "%v", rSlow.Err())
	require.Contains(t, rSlow.Err().Error(), "shutting down")

	require.Equal(t, 2, <-drained)
	require.Less(t, time.Since(start), 300*time.Millisecond+forceStopAfter+2*time.Second)
	for rStalled.Next() {
	}
	require.Error(t, rStalled.Err(), "the stalled client was disconnected")
}
