package lanceio_test

import (
	"context"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// intoStore is mapStore with ReadRangeInto, counting how often each read path is used.
type intoStore struct {
	*mapStore
	into, ranged int
}

func (s *intoStore) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	s.ranged++
	return s.mapStore.ReadRange(ctx, p, off, n)
}

func (s *intoStore) ReadRangeInto(_ context.Context, p string, off int64, buf []byte) error {
	s.into++
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objs[p]
	if !ok || off < 0 || off+int64(len(buf)) > int64(len(b)) {
		return fmt.Errorf("read %s [%d,+%d): out of range", p, off, len(buf))
	}
	copy(buf, b[off:])
	return nil
}

func TestReadInto(t *testing.T) {
	ctx := context.Background()
	newMap := func() *mapStore {
		return &mapStore{objs: map[string][]byte{"f": []byte("0123456789")}}
	}
	tests := []struct {
		name       string
		store      func() (lanceio.ObjectStore, *intoStore)
		intoBuf    bool // the result is the caller's buffer
		into, rngd int  // expected calls of each path on the innermost intoStore
	}{
		{"store with ReadRangeInto", func() (lanceio.ObjectStore, *intoStore) {
			s := &intoStore{mapStore: newMap()}
			return s, s
		}, true, 1, 0},
		{"store without it: ReadRange's slice", func() (lanceio.ObjectStore, *intoStore) {
			return newMap(), nil
		}, false, 0, 0},
		{"counting over a store with it", func() (lanceio.ObjectStore, *intoStore) {
			s := &intoStore{mapStore: newMap()}
			return lanceio.NewCountingStore(s), s
		}, true, 1, 0},
		{"counting over a store without it copies into the buffer", func() (lanceio.ObjectStore, *intoStore) {
			return lanceio.NewCountingStore(newMap()), nil
		}, true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, inner := tc.store()
			buf := make([]byte, 4)
			got, err := lanceio.ReadInto(ctx, s, "f", 3, buf)
			require.NoError(t, err)
			require.Equal(t, "3456", string(got))
			require.Equal(t, tc.intoBuf, unsafe.SliceData(got) == unsafe.SliceData(buf))
			if inner != nil {
				require.Equal(t, tc.into, inner.into)
				require.Equal(t, tc.rngd, inner.ranged)
			}
			if c, ok := s.(*lanceio.CountingStore); ok {
				require.Equal(t, int64(4), c.BytesRead())
				require.Equal(t, int64(1), c.Requests())
			}
			_, err = lanceio.ReadInto(ctx, s, "f", 8, buf)
			require.Error(t, err, "past the end")
			_, err = lanceio.ReadInto(ctx, s, "missing", 0, buf)
			require.Error(t, err)
		})
	}
}
