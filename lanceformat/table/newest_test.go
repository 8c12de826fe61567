package table_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// firstListerStore is a dirStore that can list the first n objects, counting both kinds of
// listing.
type firstListerStore struct {
	dirStore
	lists, firsts *atomic.Int64
}

func (s firstListerStore) List(ctx context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	s.lists.Add(1)
	return s.dirStore.List(ctx, prefix)
}

func (s firstListerStore) ListFirst(ctx context.Context, prefix string, n int) ([]lanceio.ObjectInfo, error) {
	s.firsts.Add(1)
	all, err := s.dirStore.List(ctx, prefix)
	return all[:min(n, len(all))], err
}

// TestLatestFromFirstListing checks that the latest version of a dataset with V2 names comes
// from one short listing of the first entries of _versions/ when the store can make one, and
// from a full listing for V1 names and mixed names.
func TestLatestFromFirstListing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		v2, v1     []uint64 // versions written under each scheme
		latest     uint64
		fullListed bool
	}{
		{name: "V2 names, long history", v2: seqU(1, 150), latest: 150},
		{name: "V1 names", v1: seqU(1, 20), latest: 20, fullListed: true},
		{name: "mixed names", v2: seqU(1, 5), v1: []uint64{1, 6}, latest: 6, fullListed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := firstListerStore{dirStore{Root: t.TempDir()}, &atomic.Int64{}, &atomic.Int64{}}
			put := func(scheme table.NamingScheme, v uint64) {
				data, err := table.EncodeManifest(sampleManifest(v))
				require.NoError(t, err)
				require.NoError(t, s.Put(ctx, "d/_versions/"+table.ManifestName(scheme, v), data))
			}
			for _, v := range tc.v2 {
				put(table.NamingV2, v)
			}
			for _, v := range tc.v1 {
				put(table.NamingV1, v)
			}
			require.NoError(t, s.Put(ctx, "d/_versions/latest_version_hint.json", []byte(`{"version":1}`)))
			ds := table.OpenDataset(s, "d")
			v, err := ds.LatestVersion(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.latest, v)
			m, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.latest, m.Version())
			require.Equal(t, int64(2), s.firsts.Load())
			if tc.fullListed {
				require.Equal(t, int64(2), s.lists.Load())
			} else {
				require.Zero(t, s.lists.Load(), "no full listing")
			}
		})
	}
}
