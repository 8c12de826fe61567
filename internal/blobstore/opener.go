package blobstore

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Opener opens stores with Open, for lanceio.Opener users (a catalog's base paths).
var Opener lanceio.Opener = lanceio.OpenerFunc(Open)

// bucketURL turns a path after the bucket ("s3://bucket/a/b") into gocloud's prefix
// parameter ("s3://bucket?prefix=a/b/"), which scopes the bucket to that directory.
func bucketURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	dir := strings.Trim(u.Path, "/")
	if dir == "" {
		return u, nil
	}
	q := u.Query()
	if p := q.Get("prefix"); p != "" {
		return nil, fmt.Errorf("both a path (%q) and a prefix parameter (%q)", u.Path, p)
	}
	q.Set("prefix", dir+"/")
	u.Path, u.RawPath, u.RawQuery = "", "", q.Encode()
	return u, nil
}

// OpenStore implements lanceio.Opener: it opens a dataset's base path. A local path or
// file:// URL opens a FileStore there without creating the directory; other URLs go to Open.
func (s *FileStore) OpenStore(ctx context.Context, uri string) (lanceio.ObjectStore, error) {
	return openBase(ctx, uri)
}

// OpenStore implements lanceio.Opener: it opens a dataset's base path. A URL of this store's
// own scheme without query parameters gets the connection parameters (endpoint, region, ...)
// of the URL this store was opened with, so a base in the same S3 service is reachable with
// the same settings; other URLs go to Open as they are.
func (s *BucketStore) OpenStore(ctx context.Context, uri string) (lanceio.ObjectStore, error) {
	scheme, _, _ := strings.Cut(uri, "://")
	if s.scheme != "" && scheme == s.scheme && !strings.Contains(uri, "?") && len(s.conn) > 0 {
		uri += "?" + s.conn.Encode()
	}
	return openBase(ctx, uri)
}

// openBase opens uri like Open, except that a local directory is not created and must be
// given as an absolute path.
func openBase(ctx context.Context, uri string) (lanceio.ObjectStore, error) {
	dir, ok := localPath(uri)
	if !ok {
		return Open(ctx, uri)
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("open base path %q: not an absolute path", uri)
	}
	return &FileStore{root: filepath.Clean(dir), handles: newHandleCache(maxOpenHandles), listings: newListCache()}, nil
}

// localPath returns the local directory uri names when it is a path or a file:// URL.
func localPath(uri string) (string, bool) {
	if !strings.Contains(uri, "://") {
		return uri, true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", false
	}
	return u.Path, true
}

var (
	_ lanceio.Opener = (*FileStore)(nil)
	_ lanceio.Opener = (*BucketStore)(nil)
)
