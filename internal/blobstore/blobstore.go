// Package blobstore opens lanceio.ObjectStore implementations from URLs.
//
// Supported schemes:
//
//	file:///abs/dir, /abs/dir, rel/dir   local files (FileStore, implemented directly on os)
//	mem://                                a fresh in-process bucket (gocloud memblob)
//	s3://, gs://, azblob://               gocloud.dev/blob URL openers (BucketStore); a path
//	                                      after the bucket ("s3://bucket/dir") is a prefix
//
// Local files do not go through gocloud's fileblob: its create-if-absent is only atomic
// within one process and it writes .attrs sidecars. FileStore commits with a hard link of
// a fully written temporary file instead, which is atomic across processes.
//
// Both stores implement lanceio.Opener (a dataset's base paths: another directory, or a
// prefix of a bucket of the same service with the same connection parameters), and
// BucketStore implements lanceio.FirstLister (one listing page: the newest versions of a
// dataset with V2 manifest names). Opener opens any URL Open accepts. FileStore answers a
// listing of a directory unchanged since it last read it (on Linux: the same directory
// stamp, and a last change older than a settling time) without reading it again
// (file_listcache.go).
package blobstore

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // registers azblob://
	_ "gocloud.dev/blob/gcsblob"   // registers gs://
	_ "gocloud.dev/blob/memblob"   // registers mem://
	_ "gocloud.dev/blob/s3blob"    // registers s3://

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Open returns the object store named by rawURL. A URL with no scheme is a local path.
// Every Open("mem://") returns a new, empty store.
func Open(ctx context.Context, rawURL string) (lanceio.ObjectStore, error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return NewFileStore(rawURL)
	}
	switch scheme {
	case "file":
		u, err := url.Parse(rawURL)
		if err != nil {
			return nil, fmt.Errorf("open store %q: %w", rawURL, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("open store %q: file URL with host %q not supported", rawURL, u.Host)
		}
		return NewFileStore(u.Path)
	case "mem", "s3", "gs", "azblob":
		u, err := bucketURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("open store %s://%s: %w", scheme, rest, err)
		}
		b, err := blob.OpenBucket(ctx, u.String())
		if err != nil {
			return nil, fmt.Errorf("open store %s://%s: %w", scheme, rest, err)
		}
		bs := NewBucketStore(b)
		bs.scheme, bs.conn = scheme, u.Query()
		bs.conn.Del("prefix")
		return bs, nil
	default:
		return nil, fmt.Errorf("open store %q: unsupported scheme %q", rawURL, scheme)
	}
}
