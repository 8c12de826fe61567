package lanceio_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// mapStore is a minimal in-memory ObjectStore for testing decorators.
type mapStore struct {
	mu   sync.Mutex
	objs map[string][]byte
}

func (s *mapStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objs[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, lanceio.ErrNotFound)
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("read %s: range [%d,+%d) past end %d", p, off, n, len(b))
	}
	return append([]byte(nil), b[off:off+n]...), nil
}

func (s *mapStore) Size(_ context.Context, p string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objs[p]
	if !ok {
		return 0, fmt.Errorf("size %s: %w", p, lanceio.ErrNotFound)
	}
	return int64(len(b)), nil
}

func (s *mapStore) List(_ context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []lanceio.ObjectInfo
	for k, v := range s.objs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, lanceio.ObjectInfo{Path: k, Size: int64(len(v))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *mapStore) Put(_ context.Context, p string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs[p] = append([]byte(nil), data...)
	return nil
}

func (s *mapStore) PutIfAbsent(_ context.Context, p string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objs[p]; ok {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	s.objs[p] = append([]byte(nil), data...)
	return nil
}

func (s *mapStore) Delete(_ context.Context, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objs[p]; !ok {
		return fmt.Errorf("delete %s: %w", p, lanceio.ErrNotFound)
	}
	delete(s.objs, p)
	return nil
}

func TestCountingStore(t *testing.T) {
	ctx := context.Background()
	inner := &mapStore{objs: map[string][]byte{}}
	require.NoError(t, inner.Put(ctx, "a/b", []byte("0123456789")))
	c := lanceio.NewCountingStore(inner)

	steps := []struct {
		name     string
		do       func() error
		bytes    int64
		requests int64
	}{
		{"read 4", func() error { _, err := c.ReadRange(ctx, "a/b", 2, 4); return err }, 4, 1},
		{"read 3 more", func() error { _, err := c.ReadRange(ctx, "a/b", 0, 3); return err }, 7, 2},
		{"size", func() error { _, err := c.Size(ctx, "a/b"); return err }, 7, 3},
		{"list", func() error { _, err := c.List(ctx, "a/"); return err }, 7, 4},
		{"put is not a read", func() error { return c.Put(ctx, "x", []byte("zz")) }, 7, 4},
		{"failed read counts the request only", func() error {
			_, err := c.ReadRange(ctx, "missing", 0, 1)
			require.ErrorIs(t, err, lanceio.ErrNotFound)
			return nil
		}, 7, 5},
	}
	for _, s := range steps {
		require.NoError(t, s.do(), s.name)
		require.Equal(t, s.bytes, c.BytesRead(), s.name)
		require.Equal(t, s.requests, c.Requests(), s.name)
	}
	c.Reset()
	require.Zero(t, c.BytesRead())
	require.Zero(t, c.Requests())
	require.NoError(t, c.PutIfAbsent(ctx, "y", nil))
	require.ErrorIs(t, c.PutIfAbsent(ctx, "y", nil), lanceio.ErrAlreadyExists)
	require.NoError(t, c.Delete(ctx, "y"))

}
