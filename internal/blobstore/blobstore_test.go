package blobstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/blobstore/blobstoretest"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestAcceptance(t *testing.T) {
	ctx := context.Background()
	stores := []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"mem", func(*testing.T) string { return "mem://" }},
		{"file URL", func(t *testing.T) string { return "file://" + t.TempDir() }},
		{"plain path", func(t *testing.T) string { return t.TempDir() }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s, err := blobstore.Open(ctx, st.url(t))
			require.NoError(t, err)
			if c, ok := s.(interface{ Close() error }); ok {
				defer func() { require.NoError(t, c.Close()) }()
			}
			blobstoretest.Run(t, s)
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"ftp://x/y", "file://otherhost/x", ""} {
		_, err := blobstore.Open(ctx, u)
		require.Error(t, err, u)
	}
}

func TestFileStoreRejectsEscapingPaths(t *testing.T) {
	ctx := context.Background()
	s, err := blobstore.NewFileStore(t.TempDir())
	require.NoError(t, err)
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", "a//b", "a/./b", ".flightd-tmp-x"} {
		require.Error(t, s.Put(ctx, p, []byte("x")), p)
		_, err := s.ReadRange(ctx, p, 0, 0)
		require.Error(t, err, p)
	}
}

// TestFileStoreIndependentInstances checks PutIfAbsent atomicity between stores that share
// no process-local lock (as two processes would): the hard link decides.
func TestFileStoreIndependentInstances(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 8
	stores := make([]*blobstore.FileStore, n)
	for i := range stores {
		s, err := blobstore.NewFileStore(dir)
		require.NoError(t, err)
		stores[i] = s
	}
	for round := range 20 {
		p := filepath.ToSlash(filepath.Join("_versions", "m"+string(rune('a'+round))))
		results := make(chan error, n)
		for _, s := range stores {
			go func() { results <- s.PutIfAbsent(ctx, p, []byte(p)) }()
		}
		wins := 0
		for range n {
			err := <-results
			if err == nil {
				wins++
				continue
			}
			require.ErrorIs(t, err, lanceio.ErrAlreadyExists)
		}
		require.Equal(t, 1, wins, "round %d", round)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "_versions"))
	require.NoError(t, err)
	require.Len(t, entries, 20, "temporary files must be cleaned up")
}
