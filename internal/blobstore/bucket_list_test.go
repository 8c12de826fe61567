package blobstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

func TestBucketListFirst(t *testing.T) {
	ctx := context.Background()
	s, err := blobstore.Open(ctx, "mem://")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.(*blobstore.BucketStore).Close()) }()
	for _, p := range []string{"d/_versions/3", "d/_versions/1", "d/_versions/2", "d/_versions/x/4", "e/1"} {
		require.NoError(t, s.Put(ctx, p, []byte(p)))
	}
	fl := s.(lanceio.FirstLister)
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{1, []string{"d/_versions/1"}},
		{2, []string{"d/_versions/1", "d/_versions/2"}},
		{10, []string{"d/_versions/1", "d/_versions/2", "d/_versions/3", "d/_versions/x/4"}},
	} {
		objs, err := fl.ListFirst(ctx, "d/_versions/", tc.n)
		require.NoError(t, err)
		var got []string
		for _, o := range objs {
			got = append(got, o.Path)
			require.Equal(t, int64(len(o.Path)), o.Size)
		}
		require.Equal(t, tc.want, got, "first %d", tc.n)
	}
	_, err = fl.ListFirst(ctx, "d/", 0)
	require.ErrorContains(t, err, "n must be positive")
}
