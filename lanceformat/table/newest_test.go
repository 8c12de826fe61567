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
		extra      []string // other files in _versions/
		latest     uint64
		fullListed bool
		firsts     int64 // first-listings per latest lookup
	}{
		{name: "V2 names, long history", v2: seqU(1, 150), latest: 150, firsts: 1},
		{name: "V1 names", v1: seqU(1, 20), latest: 20, fullListed: true, firsts: 1},
		{name: "mixed names", v2: seqU(1, 5), v1: []uint64{1, 6}, latest: 6, fullListed: true, firsts: 1},
		// A staging file of the next version sorts first: the page of newest entries decides.
		{name: "staging name first", v2: seqU(1, 7), latest: 7, firsts: 2,
			extra: []string{table.ManifestName(table.NamingV2, 8) + "-0b9e7f4c-1d2e-4f00-8a9b-123456789abc"}},
		{name: "detached version and hint file", v2: seqU(1, 3), latest: 3, firsts: 1,
			extra: []string{"d9223372036854775809.manifest"}},
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
			for _, name := range tc.extra {
				require.NoError(t, s.Put(ctx, "d/_versions/"+name, []byte("not a manifest")))
			}
			ds := table.OpenDataset(s, "d")
			v, err := ds.LatestVersion(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.latest, v)
			m, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.latest, m.Version())
			vi, ok, err := ds.LatestManifest(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tc.latest, vi.Version)
			scheme := table.NamingV2
			if tc.fullListed {
				scheme = table.NamingV1
			}
			require.Equal(t, "d/_versions/"+table.ManifestName(scheme, tc.latest), vi.Path)
			require.Equal(t, 3*tc.firsts, s.firsts.Load())
			if tc.fullListed {
				require.Equal(t, int64(3), s.lists.Load())
			} else {
				require.Zero(t, s.lists.Load(), "no full listing")
			}
		})
	}
}

// TestLatestManifestEmpty checks that a dataset without versions (or without a directory)
// has no latest manifest, and that a commit is seen by the next lookup.
func TestLatestManifestEmpty(t *testing.T) {
	ctx := context.Background()
	s := firstListerStore{dirStore{Root: t.TempDir()}, &atomic.Int64{}, &atomic.Int64{}}
	ds := table.OpenDataset(s, "d")
	_, ok, err := ds.LatestManifest(ctx)
	require.NoError(t, err)
	require.False(t, ok)
	_, err = ds.LatestVersion(ctx)
	require.ErrorIs(t, err, table.ErrVersionNotFound)
	for v := uint64(1); v <= 3; v++ {
		data, err := table.EncodeManifest(sampleManifest(v))
		require.NoError(t, err)
		require.NoError(t, s.Put(ctx, "d/_versions/"+table.ManifestName(table.NamingV2, v), data))
		vi, ok, err := ds.LatestManifest(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, v, vi.Version)
		require.Equal(t, int64(len(data)), vi.Size)
	}
}
