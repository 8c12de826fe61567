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

// TestFileStoreOpensBases checks FileStore's lanceio.Opener: local paths and file:// URLs
// open a store rooted there (without creating a missing directory), relative paths fail.
func TestFileStoreOpensBases(t *testing.T) {
	ctx := context.Background()
	root, other := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(other, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "data", "f.lance"), []byte("hello"), 0o644))
	s, err := blobstore.NewFileStore(root)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	var o lanceio.Opener = s
	for _, tc := range []struct {
		name, uri, path string
		err             string
	}{
		{name: "plain path", uri: other, path: "data/f.lance"},
		{name: "file URL", uri: "file://" + other, path: "data/f.lance"},
		{name: "file URL of a subdirectory", uri: "file://" + other + "/data/", path: "f.lance"},
		{name: "relative path", uri: "rel/dir", err: "not an absolute path"},
		{name: "unknown scheme", uri: "ftp://host/x", err: "unsupported scheme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, err := o.OpenStore(ctx, tc.uri)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			b, err := bs.ReadRange(ctx, tc.path, 0, 5)
			require.NoError(t, err)
			require.Equal(t, "hello", string(b))
		})
	}
	missing := filepath.Join(root, "no", "such", "dir")
	bs, err := o.OpenStore(ctx, missing)
	require.NoError(t, err)
	_, err = bs.Size(ctx, "x")
	require.ErrorIs(t, err, lanceio.ErrNotFound)
	_, err = os.Stat(missing)
	require.ErrorIs(t, err, os.ErrNotExist, "opening a base path does not create its directory")
}

// TestOpenBucketPath checks that a path after the bucket scopes the store to that directory.
func TestOpenBucketPath(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, url, err string }{
		{name: "bucket", url: "mem://"},
		{name: "bucket with a path", url: "mem://b/some/dir"},
		{name: "path and prefix", url: "mem://b/dir?prefix=x/", err: "both a path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := blobstore.Open(ctx, tc.url)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer func() { require.NoError(t, s.(*blobstore.BucketStore).Close()) }()
			require.NoError(t, s.Put(ctx, "a/b", []byte("x")))
			infos, err := s.List(ctx, "")
			require.NoError(t, err)
			require.Len(t, infos, 1)
			require.Equal(t, "a/b", infos[0].Path, "paths are relative to the store's directory")
		})
	}
}
