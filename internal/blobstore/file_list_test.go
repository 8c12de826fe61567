package blobstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// TestFileStoreListFirst: ListFirst returns List's first n objects, skipping temporary
// files and descending into nested directories in path order.
func TestFileStoreListFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := blobstore.NewFileStore(dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	for _, p := range []string{"d/_versions/3", "d/_versions/1", "d/_versions/2", "d/_versions/x/4", "d/_versionsX", "e/1"} {
		require.NoError(t, s.Put(ctx, p, []byte(p)))
	}
	// A writer's temporary file, sorting first: never listed.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "_versions", ".flightd-tmp-0"), []byte("partial"), 0o644))
	all := []string{"d/_versions/1", "d/_versions/2", "d/_versions/3", "d/_versions/x/4"}
	infos, err := s.List(ctx, "d/_versions/")
	require.NoError(t, err)
	require.Equal(t, all, paths(infos))
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{1, all[:1]},
		{2, all[:2]},
		{4, all},
		{10, all},
	} {
		objs, err := s.ListFirst(ctx, "d/_versions/", tc.n)
		require.NoError(t, err)
		require.Equal(t, tc.want, paths(objs), "first %d", tc.n)
		for _, o := range objs {
			require.Equal(t, int64(len(o.Path)), o.Size)
			require.False(t, o.ModTime.IsZero())
		}
	}
	objs, err := s.ListFirst(ctx, "d/_versions", 10)
	require.NoError(t, err)
	require.Equal(t, append(append([]string{}, all...), "d/_versionsX"), paths(objs))
	objs, err = s.ListFirst(ctx, "missing/", 3)
	require.NoError(t, err)
	require.Empty(t, objs)
	_, err = s.ListFirst(ctx, "d/", 0)
	require.ErrorContains(t, err, "n must be positive")
}

func paths(objs []lanceio.ObjectInfo) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Path)
	}
	return out
}
