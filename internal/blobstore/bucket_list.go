package blobstore

import (
	"context"
	"fmt"

	"gocloud.dev/blob"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// ListFirst implements lanceio.FirstLister with one listing page: gocloud lists keys in
// lexicographic order on every provider, so the page holds the first n keys.
func (s *BucketStore) ListFirst(ctx context.Context, prefix string, n int) ([]lanceio.ObjectInfo, error) {
	if n <= 0 {
		return nil, fmt.Errorf("list first %d of %s: n must be positive", n, prefix)
	}
	objs, _, err := s.b.ListPage(ctx, blob.FirstPageToken, n, &blob.ListOptions{Prefix: prefix})
	if err != nil {
		return nil, mapBlobError("list", prefix, err)
	}
	out := make([]lanceio.ObjectInfo, 0, len(objs))
	for _, o := range objs {
		if !o.IsDir {
			out = append(out, lanceio.ObjectInfo{Path: o.Key, Size: o.Size, ModTime: o.ModTime})
		}
	}
	return out, nil
}

var _ lanceio.FirstLister = (*BucketStore)(nil)
