package flightsrv

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog/memcat"
)

// TestListenFailureLeavesNoGoroutines: Listen on an address in use fails after the call
// log's writer and gRPC's stream workers started; Listen stops them.
func TestListenFailureLeavesNoGoroutines(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer lis.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := New(Config{Catalog: memcat.New(), Mem: mem, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	_, _, err = srv.Listen(lis.Addr().String())
	require.Error(t, err)
	goleak.VerifyNone(t)
}
