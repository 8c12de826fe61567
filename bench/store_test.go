package bench

import (
	"context"
	"sync/atomic"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// countingStore counts the range reads flightd makes and the bytes they return, so a
// benchmark can report how much I/O its figure includes.
type countingStore struct {
	lanceio.ObjectStore
	reads, bytes atomic.Int64
}

// ReadRange implements lanceio.ObjectStore.
func (s *countingStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	s.reads.Add(1)
	s.bytes.Add(n)
	return s.ObjectStore.ReadRange(ctx, path, off, n)
}
