package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/internal/testutil"
)

// lockedBuffer collects the server's log output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeDrainsOnShutdown stops `flightd serve` (as SIGTERM does, by cancelling its
// context) while a client reads a large result slowly: the server stops within the shutdown
// timeout plus the forced-stop grace, the client gets UNAVAILABLE, and the logs say so. The
// result (a billion rows) must be far larger than what gRPC's flow-control windows and the
// socket buffers hold: a 1M-row one (25 MB) was sent whole before the shutdown began once the
// server got fast enough, and the client then read it to the end without an error.
func TestServeDrainsOnShutdown(t *testing.T) {
	py := testutil.Python(t)
	root := t.TempDir()
	gen := exec.Command(py, filepath.Join("..", "..", "integration", "testdata", "make_tables.py"), root)
	outGen, err := gen.CombinedOutput()
	require.NoError(t, err, string(outGen))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	var logs lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--root", root, "--addr", "127.0.0.1:0", "--shutdown-timeout", "200ms"}, w, &logs)
		w.Close()
	}()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	addr := strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0]

	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	info, err := cl.Execute(context.Background(), "SELECT t1.a, t1.b, t2.c FROM t t1 CROSS JOIN t t2 CROSS JOIN t t3")
	require.NoError(t, err)
	rdr, err := cl.DoGet(context.Background(), info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	require.True(t, rdr.Next())

	start := time.Now()
	cancel()
	for rdr.Next() {
		time.Sleep(2 * time.Millisecond)
	}
	require.Equal(t, codes.Unavailable, status.Code(rdr.Err()), "%v", rdr.Err())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("flightd serve did not stop")
	}
	require.Less(t, time.Since(start), 5*time.Second)
	require.Contains(t, logs.String(), "shutting down")
	require.Contains(t, logs.String(), "cancelled_streams=1")
}
