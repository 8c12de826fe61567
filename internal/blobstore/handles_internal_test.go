package blobstore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// openFDs counts this process's open file descriptors (Linux only).
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count file descriptors: %v", err)
	}
	return len(ents)
}

func TestFileStoreHandles(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		files     int
		ext       string
		wantOpen  int
		readsEach int
	}{
		{"data files share handles", 3, ".lance", 3, 5},
		{"bounded by the cache size", maxOpenHandles + 10, ".lance", maxOpenHandles, 2},
		{"other objects are not cached", 4, ".manifest", 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewFileStore(t.TempDir())
			require.NoError(t, err)
			before := openFDs(t)
			for i := range tc.files {
				p := fmt.Sprintf("data/f%03d%s", i, tc.ext)
				require.NoError(t, s.Put(ctx, p, []byte(fmt.Sprintf("contents-%03d", i))))
			}
			for r := range tc.readsEach {
				for i := range tc.files {
					p := fmt.Sprintf("data/f%03d%s", i, tc.ext)
					b, err := s.ReadRange(ctx, p, 9, 3)
					require.NoError(t, err, "read %d", r)
					require.Equal(t, fmt.Sprintf("%03d", i), string(b))
				}
			}
			require.Equal(t, tc.wantOpen, s.handles.openCount())
			require.Equal(t, before+tc.wantOpen, openFDs(t))
			require.NoError(t, s.Close())
			require.Equal(t, 0, s.handles.openCount())
			require.Equal(t, before, openFDs(t), "handles leaked after Close")
		})
	}
}

func TestFileStoreHandleInvalidation(t *testing.T) {
	ctx := context.Background()
	s, err := NewFileStore(t.TempDir())
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	const p = "data/x.lance"
	require.NoError(t, s.Put(ctx, p, []byte("old!")))
	b, err := s.ReadRange(ctx, p, 0, 4)
	require.NoError(t, err)
	require.Equal(t, "old!", string(b))
	require.Equal(t, 1, s.handles.openCount())

	require.NoError(t, s.Put(ctx, p, []byte("new!")))
	b, err = s.ReadRange(ctx, p, 0, 4)
	require.NoError(t, err)
	require.Equal(t, "new!", string(b), "a stale handle served the replaced file")

	require.NoError(t, s.Delete(ctx, p))
	_, err = s.ReadRange(ctx, p, 0, 4)
	require.Error(t, err)
	require.Equal(t, 0, s.handles.openCount())
}

// TestFileStoreHandlesConcurrent reads many files from many goroutines with a tiny cache,
// so handles are evicted while other readers use them; -race checks the bookkeeping and the
// descriptor count checks every evicted handle was closed.
func TestFileStoreHandlesConcurrent(t *testing.T) {
	ctx := context.Background()
	s, err := NewFileStore(t.TempDir())
	require.NoError(t, err)
	s.handles = newHandleCache(3)
	const files = 10
	for i := range files {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("f%d.lance", i), []byte(fmt.Sprintf("%04d", i))))
	}
	before := openFDs(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g*7 + k) % files
				b, err := s.ReadRange(ctx, fmt.Sprintf("f%d.lance", i), 0, 4)
				if err != nil || string(b) != fmt.Sprintf("%04d", i) {
					errs <- fmt.Errorf("file %d: got %q, %v", i, b, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, s.handles.openCount(), 3)
	require.LessOrEqual(t, openFDs(t), before+3)
	require.NoError(t, s.Close())
	require.Equal(t, before, openFDs(t))
}
