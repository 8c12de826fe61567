package lanceio

import "context"

// FirstLister is the optional capability of stores that can list only the first objects
// under a prefix, in path order, in one cheap request (an object store's first listing
// page) instead of listing them all. Lance's V2 manifest names sort newest first, so the
// newest versions of a dataset are the first objects of its _versions/ directory.
type FirstLister interface {
	// ListFirst returns up to n objects whose path starts with prefix: the first ones in
	// path order, as List would return them.
	ListFirst(ctx context.Context, prefix string, n int) ([]ObjectInfo, error)
}
