package lanceio

import (
	"context"
	"sync/atomic"
)

// CountingStore is an ObjectStore decorator that counts what is read through it. Tests use
// it to check that a reader fetches fewer bytes or makes fewer requests.
type CountingStore struct {
	inner    ObjectStore
	bytes    atomic.Int64
	requests atomic.Int64
}

// NewCountingStore wraps s.
func NewCountingStore(s ObjectStore) *CountingStore {
	return &CountingStore{inner: s}
}

// BytesRead is the number of bytes returned by ReadRange so far.
func (c *CountingStore) BytesRead() int64 { return c.bytes.Load() }

// Requests is the number of read-side requests (ReadRange, Size and List calls) so far.
func (c *CountingStore) Requests() int64 { return c.requests.Load() }

// Reset sets both counters to zero.
func (c *CountingStore) Reset() {
	c.bytes.Store(0)
	c.requests.Store(0)
}

// ReadRange implements ObjectStore.
func (c *CountingStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	c.requests.Add(1)
	b, err := c.inner.ReadRange(ctx, path, off, n)
	c.bytes.Add(int64(len(b)))
	return b, err
}

// ReadRangeInto implements RangeIntoReader: it reads into buf through the wrapped store's
// ReadRangeInto when it has one (copying from ReadRange otherwise), counting like ReadRange.
func (c *CountingStore) ReadRangeInto(ctx context.Context, path string, off int64, buf []byte) error {
	c.requests.Add(1)
	if err := readIntoBuf(ctx, c.inner, path, off, buf); err != nil {
		return err
	}
	c.bytes.Add(int64(len(buf)))
	return nil
}

// Size implements ObjectStore.
func (c *CountingStore) Size(ctx context.Context, path string) (int64, error) {
	c.requests.Add(1)
	return c.inner.Size(ctx, path)
}

// List implements ObjectStore.
func (c *CountingStore) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	c.requests.Add(1)
	return c.inner.List(ctx, prefix)
}

// Put implements ObjectStore.
func (c *CountingStore) Put(ctx context.Context, path string, data []byte) error {
	return c.inner.Put(ctx, path, data)
}

// PutIfAbsent implements ObjectStore.
func (c *CountingStore) PutIfAbsent(ctx context.Context, path string, data []byte) error {
	return c.inner.PutIfAbsent(ctx, path, data)
}

// Delete implements ObjectStore.
func (c *CountingStore) Delete(ctx context.Context, path string) error {
	return c.inner.Delete(ctx, path)
}

var (
	_ ObjectStore     = (*CountingStore)(nil)
	_ RangeIntoReader = (*CountingStore)(nil)
)
