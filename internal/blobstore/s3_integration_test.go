package blobstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/blobstore/blobstoretest"
	"github.com/flightd/flightd/internal/blobstore/s3server"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// TestS3Server runs the store contract and a create-if-absent race against a real
// S3-compatible server (versitygw): gocloud's s3blob sends If-None-Match: * and the server
// honours it, so exactly one writer wins each key and the losers see ErrAlreadyExists.
func TestS3Server(t *testing.T) {
	srv := s3server.Start(t)
	ctx := context.Background()
	s, err := blobstore.Open(ctx, srv.URL())
	require.NoError(t, err)
	defer func() { require.NoError(t, s.(*blobstore.BucketStore).Close()) }()

	t.Run("acceptance", func(t *testing.T) { blobstoretest.Run(t, s) })
	t.Run("base path in the same service", func(t *testing.T) {
		require.NoError(t, s.Put(ctx, "other/base/data/f.lance", []byte("base file")))
		bs, err := s.(lanceio.Opener).OpenStore(ctx, "s3://"+s3server.Bucket+"/other/base")
		require.NoError(t, err)
		defer func() { require.NoError(t, bs.(*blobstore.BucketStore).Close()) }()
		b, err := bs.ReadRange(ctx, "data/f.lance", 0, 9)
		require.NoError(t, err, "the base store reuses the endpoint and credentials settings")
		require.Equal(t, "base file", string(b))
	})
	t.Run("race for many keys", func(t *testing.T) {
		const writers, keys = 8, 40
		wins := make([]int, keys)
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				for k := range keys {
					p := fmt.Sprintf("race/_versions/%d.manifest", k)
					err := s.PutIfAbsent(ctx, p, fmt.Appendf(nil, "writer %d", w))
					switch {
					case err == nil:
						mu.Lock()
						wins[k]++
						mu.Unlock()
					case errors.Is(err, lanceio.ErrAlreadyExists):
					default:
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...))
		for k, n := range wins {
			require.Equal(t, 1, n, "key %d has exactly one winner", k)
		}
		infos, err := s.List(ctx, "race/_versions/")
		require.NoError(t, err)
		require.Len(t, infos, keys)
	})
}
