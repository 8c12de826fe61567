package lanceio

import (
	"context"
	"sync"
)

// Opener opens the object store rooted at a location given as a URI ("s3://bucket/dir",
// "file:///abs/dir") or a local path ("/abs/dir"). Lance datasets name such locations in
// their manifests' base paths (lance.table.BasePath.path): files of a version may live under
// another root than the dataset's own.
//
// Object stores may implement Opener themselves, to open locations of their own kind with
// their own connection settings; callers find that by type assertion.
type Opener interface {
	// OpenStore returns the store rooted at uri. Paths given to the store are relative to
	// uri. Implementations may return the same store for the same uri.
	OpenStore(ctx context.Context, uri string) (ObjectStore, error)
}

// OpenerFunc adapts a function to Opener.
type OpenerFunc func(ctx context.Context, uri string) (ObjectStore, error)

// OpenStore implements Opener.
func (f OpenerFunc) OpenStore(ctx context.Context, uri string) (ObjectStore, error) {
	return f(ctx, uri)
}

// CachingOpener returns an Opener that opens each uri once with o and then returns the
// same store for it. It is safe for concurrent use; a failed open is not remembered.
func CachingOpener(o Opener) Opener {
	return &cachingOpener{inner: o, stores: map[string]ObjectStore{}}
}

type cachingOpener struct {
	inner  Opener
	mu     sync.Mutex
	stores map[string]ObjectStore
}

// OpenStore implements Opener.
func (c *cachingOpener) OpenStore(ctx context.Context, uri string) (ObjectStore, error) {
	c.mu.Lock()
	defer c.mu.Unlock() // opens are rare (once per base); serialising them is fine
	if s, ok := c.stores[uri]; ok {
		return s, nil
	}
	s, err := c.inner.OpenStore(ctx, uri)
	if err != nil {
		return nil, err
	}
	c.stores[uri] = s
	return s, nil
}
