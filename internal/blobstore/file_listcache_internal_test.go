package blobstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// testSettled is the settledAge of the stores these tests make: a directory untouched for
// this long has its listing remembered.
const testSettled = 30 * time.Millisecond

// newListTestStore returns a FileStore over a new directory whose listings are remembered
// once their directory is testSettled old.
func newListTestStore(t *testing.T) (*FileStore, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("directory stamps are only used on Linux")
	}
	dir := t.TempDir()
	s, err := NewFileStore(dir)
	require.NoError(t, err)
	s.listings.settled = testSettled
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s, dir
}

// settle waits until the listing of a directory changed now would be remembered.
func settle() { time.Sleep(testSettled + 10*time.Millisecond) }

type listed struct {
	path string
	size int64
}

func listedOf(objs []lanceio.ObjectInfo) []listed {
	var out []listed
	for _, o := range objs {
		out = append(out, listed{o.Path, o.Size})
	}
	return out
}

// TestFileStoreListingCacheSeesChanges: a remembered listing is used only while its
// directory is unchanged. Files created, removed or rewritten right after a listing was
// remembered, and the directory removed and created again with the same names, are seen by
// the next listing, whichever of List and ListFirst made or uses the remembered one.
func TestFileStoreListingCacheSeesChanges(t *testing.T) {
	ctx := context.Background()
	const prefix = "t.lance/_versions/"
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, s *FileStore, root string)
		want   []listed
	}{
		{"created", func(t *testing.T, s *FileStore, _ string) {
			require.NoError(t, s.PutIfAbsent(ctx, prefix+"0", []byte("v3")))
		}, []listed{{prefix + "0", 2}, {prefix + "1", 3}, {prefix + "2", 4}}},
		{"created by another writer", func(t *testing.T, _ *FileStore, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "t.lance", "_versions", "0"), []byte("v3"), 0o644))
		}, []listed{{prefix + "0", 2}, {prefix + "1", 3}, {prefix + "2", 4}}},
		{"removed", func(t *testing.T, s *FileStore, _ string) {
			require.NoError(t, s.Delete(ctx, prefix+"1"))
		}, []listed{{prefix + "2", 4}}},
		{"rewritten in place", func(t *testing.T, _ *FileStore, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "t.lance", "_versions", "1"), []byte("v2 again"), 0o644))
		}, []listed{{prefix + "1", 8}, {prefix + "2", 4}}},
		{"directory removed and created again", func(t *testing.T, s *FileStore, root string) {
			require.NoError(t, os.RemoveAll(filepath.Join(root, "t.lance")))
			require.NoError(t, s.Put(ctx, prefix+"1", []byte("new")))
			require.NoError(t, s.Put(ctx, prefix+"2", []byte("new1")))
		}, []listed{{prefix + "1", 3}, {prefix + "2", 4}}},
		{"temporary file only", func(t *testing.T, _ *FileStore, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "t.lance", "_versions", tmpPrefix+"0"), nil, 0o644))
		}, []listed{{prefix + "1", 3}, {prefix + "2", 4}}},
	} {
		for _, first := range []int{1, -1} {
			t.Run(fmt.Sprintf("%s/first=%d", tc.name, first), func(t *testing.T) {
				s, root := newListTestStore(t)
				require.NoError(t, s.Put(ctx, prefix+"1", []byte("v2x")))
				require.NoError(t, s.Put(ctx, prefix+"2", []byte("v1xx")))
				settle()
				for range 2 { // the second listing is served from the remembered one
					objs, err := s.List(ctx, prefix)
					require.NoError(t, err)
					require.Equal(t, []listed{{prefix + "1", 3}, {prefix + "2", 4}}, listedOf(objs))
				}
				require.True(t, s.listings.entries.Contains(prefix), "the settled listing is remembered")
				tc.change(t, s, root)
				got, want := []listed(nil), tc.want
				if first > 0 {
					objs, err := s.ListFirst(ctx, prefix, first)
					require.NoError(t, err)
					got, want = listedOf(objs), want[:first]
				} else {
					objs, err := s.List(ctx, prefix)
					require.NoError(t, err)
					got = listedOf(objs)
				}
				require.Equal(t, want, got)
			})
		}
	}
}

// TestFileStoreListingCacheKeeps: what is remembered and what is not. A directory changed
// within the settling time, a listing that reads nested directories and a missing
// directory are read every time; a long listing keeps its first paths, which serve a short
// ListFirst but not a List.
func TestFileStoreListingCacheKeeps(t *testing.T) {
	ctx := context.Background()
	s, root := newListTestStore(t)
	require.NoError(t, s.Put(ctx, "a/_versions/1", []byte("x")))
	require.NoError(t, s.Put(ctx, "n/_versions/1", []byte("x")))
	require.NoError(t, s.Put(ctx, "n/_versions/sub/2", []byte("x")))
	for i := range maxListedPaths + 2 {
		require.NoError(t, s.Put(ctx, fmt.Sprintf("long/_versions/%04d", i), []byte("x")))
	}

	s.listings.settled = time.Hour // nothing has settled
	_, err := s.List(ctx, "a/_versions/")
	require.NoError(t, err)
	require.False(t, s.listings.entries.Contains("a/_versions/"), "a directory changed recently is not remembered")

	settle()
	s.listings.settled = testSettled
	for _, p := range []string{"a/_versions/", "n/_versions/", "missing/_versions/", "long/_versions/"} {
		_, err := s.List(ctx, p)
		require.NoError(t, err)
	}
	require.True(t, s.listings.entries.Contains("a/_versions/"))
	require.False(t, s.listings.entries.Contains("n/_versions/"), "a listing of nested directories is not remembered")
	require.False(t, s.listings.entries.Contains("missing/_versions/"))
	long, ok := s.listings.entries.Get("long/_versions/")
	require.True(t, ok)
	require.False(t, long.complete)
	require.Len(t, long.paths, maxListedPaths)

	// A file added in a nested directory (which leaves the top directory's stamp as it was)
	// is listed.
	require.NoError(t, os.WriteFile(filepath.Join(root, "n", "_versions", "sub", "3"), []byte("x"), 0o644))
	objs, err := s.List(ctx, "n/_versions/")
	require.NoError(t, err)
	require.Equal(t, []string{"n/_versions/1", "n/_versions/sub/2", "n/_versions/sub/3"}, pathsOf(objs))

	// The long listing: the kept paths serve ListFirst up to their number; List and longer
	// ListFirsts read the directory.
	for _, n := range []int{1, maxListedPaths, maxListedPaths + 1, -1} {
		var objs []lanceio.ObjectInfo
		if n < 0 {
			objs, err = s.List(ctx, "long/_versions/")
		} else {
			objs, err = s.ListFirst(ctx, "long/_versions/", n)
		}
		require.NoError(t, err)
		want := maxListedPaths + 2
		if n >= 0 {
			want = min(n, want)
		}
		require.Len(t, objs, want, "first %d", n)
		require.Equal(t, fmt.Sprintf("long/_versions/%04d", want-1), objs[want-1].Path)
	}
}

// TestFileStoreListingCacheVanished: a remembered path that is gone although the stamp
// matched (it changed between the stat and the listing; simulated here) makes the listing
// read the directory instead of returning fewer objects than there are.
func TestFileStoreListingCacheVanished(t *testing.T) {
	ctx := context.Background()
	s, root := newListTestStore(t)
	const prefix = "t/_versions/"
	require.NoError(t, s.Put(ctx, prefix+"1", []byte("x")))
	require.NoError(t, s.Put(ctx, prefix+"2", []byte("x")))
	settle()
	_, err := s.ListFirst(ctx, prefix, 1)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(root, "t", "_versions", "1")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "t", "_versions", "0"), []byte("x"), 0o644))
	stamp, ok := dirStampOf(filepath.Join(root, "t", "_versions"))
	require.True(t, ok)
	l, ok := s.listings.entries.Get(prefix)
	require.True(t, ok)
	l.stamp = stamp // as if the listing had been read after the changes' stamp
	s.listings.entries.Add(prefix, l)

	objs, err := s.ListFirst(ctx, prefix, 2)
	require.NoError(t, err)
	require.Equal(t, []string{prefix + "0", prefix + "2"}, pathsOf(objs))
}

func pathsOf(objs []lanceio.ObjectInfo) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Path)
	}
	return out
}
