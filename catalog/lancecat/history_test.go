package lancecat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
)

// TestLongHistoryOnObjectStore loads versions of a table with more versions than the newest
// listing page (an object store lists only the first entries of _versions/ for the latest
// version): the latest, recent and old versions and a tag on an old version all resolve.
func TestLongHistoryOnObjectStore(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, "mem://")
	require.NoError(t, err)
	defer func() { require.NoError(t, store.(*blobstore.BucketStore).Close()) }()
	c := lancecat.New(store)
	const versions = 70
	b := kvBatch(mem, 0)
	_, err = c.CreateTable(ctx, "t", kvSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
	b.Release()
	require.NoError(t, err)
	for k := int64(1); k < versions; k++ {
		b := kvBatch(mem, k)
		_, err = c.Append(ctx, "t", []arrow.RecordBatch{b})
		b.Release()
		require.NoError(t, err)
	}
	ds, err := c.Dataset("t")
	require.NoError(t, err)
	require.NoError(t, ds.CreateTag(ctx, "early", 2))
	newest, err := ds.NewestManifests(ctx)
	require.NoError(t, err)
	require.Less(t, len(newest), versions, "the object store listed only the newest versions")
	require.Equal(t, uint64(versions), newest[len(newest)-1].Version)

	for _, tc := range []struct {
		name string
		at   catalog.VersionRef
		want uint64
	}{
		{"latest", catalog.VersionRef{}, versions},
		{"recent", catalog.VersionRef{Version: versions - 1}, versions - 1},
		{"first", catalog.VersionRef{Version: 1}, 1},
		{"tag on an old version", catalog.VersionRef{Tag: "early"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tbl, err := c.LoadTable(ctx, "t", tc.at)
			require.NoError(t, err)
			require.Equal(t, tc.want, tbl.Version())
			require.Equal(t, rangeK(0, int64(tc.want)), scanKeys(t, c, "t", tc.at))
		})
	}
	_, err = c.LoadTable(ctx, "t", catalog.VersionRef{Version: versions + 1})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
}
