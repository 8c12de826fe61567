package lanceio_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

func TestCachingOpener(t *testing.T) {
	ctx := context.Background()
	var opened []string
	fail := true
	inner := lanceio.OpenerFunc(func(_ context.Context, uri string) (lanceio.ObjectStore, error) {
		opened = append(opened, uri)
		if uri == "bad" && fail {
			return nil, errors.New("cannot open")
		}
		return lanceio.NewCountingStore(nil), nil
	})
	o := lanceio.CachingOpener(inner)
	a1, err := o.OpenStore(ctx, "a")
	require.NoError(t, err)
	a2, err := o.OpenStore(ctx, "a")
	require.NoError(t, err)
	require.Same(t, a1, a2, "one store per uri")
	b, err := o.OpenStore(ctx, "b")
	require.NoError(t, err)
	require.NotSame(t, a1, b)
	_, err = o.OpenStore(ctx, "bad")
	require.ErrorContains(t, err, "cannot open")
	fail = false
	_, err = o.OpenStore(ctx, "bad")
	require.NoError(t, err, "a failed open is not remembered")
	require.Equal(t, []string{"a", "b", "bad", "bad"}, opened)
}
