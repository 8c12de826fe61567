package table_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

func TestPylanceDatasets(t *testing.T) {
	dir, expect := pylanceDatasets(t)
	ctx := context.Background()
	store := dirStore{Root: dir}
	wantScheme := map[string]string{"v1_20": "/1.manifest", "default": "/18446744073709551614.manifest"}
	for name, want := range expect {
		t.Run(name, func(t *testing.T) {
			ds := table.OpenDataset(store, name+".lance/")
			latest, err := ds.LatestVersion(ctx)
			require.NoError(t, err)
			require.Equal(t, want.Latest, latest)

			vs, err := ds.Versions(ctx)
			require.NoError(t, err)
			var nums []uint64
			for i, v := range vs {
				nums = append(nums, v.Version)
				require.False(t, v.Timestamp.IsZero())
				require.WithinDuration(t, time.Now(), v.Timestamp, 10*time.Minute)
				if i > 0 {
					require.False(t, v.Timestamp.Before(vs[i-1].Timestamp), "timestamps go backwards")
				}
			}
			require.Equal(t, want.Versions, nums)
			if suffix, ok := wantScheme[name]; ok {
				require.True(t, strings.HasSuffix(vs[0].Path, suffix), vs[0].Path)
			}

			m, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Equal(t, want.Latest, m.Version())
			require.Equal(t, want.Format, m.DataFormatVersion())
			require.Len(t, m.Fields(), 2)
			require.Equal(t, "a", m.Fields()[0].GetName())
			require.Equal(t, "int64", m.Fields()[0].GetLogicalType())
			require.Equal(t, "string", m.Fields()[1].GetLogicalType())
			require.NoError(t, table.CheckReaderFeatures(m))

			require.Len(t, m.Fragments(), len(want.Fragments))
			var live uint64
			for i, f := range m.Fragments() {
				wf := want.Fragments[i]
				require.Equal(t, wf.ID, f.GetId())
				require.Equal(t, wf.PhysicalRows, f.GetPhysicalRows())
				dv, err := ds.ReadDeletionVector(ctx, f)
				require.NoError(t, err)
				require.Equal(t, int(wf.PhysicalRows-wf.LiveRows), dv.Len(), "fragment %d", f.GetId())
				live += f.GetPhysicalRows() - uint64(dv.Len())
			}
			require.Equal(t, want.Rows, live)

			for _, v := range want.Versions {
				mv, err := ds.Checkout(ctx, v)
				require.NoError(t, err)
				require.Equal(t, v, mv.Version())
			}
		})
	}
}

func TestDeletedOffsets(t *testing.T) {
	dir, _ := pylanceDatasets(t)
	ctx := context.Background()
	seq := func(start, end, step uint32) []uint32 {
		var out []uint32
		for v := start; v < end; v += step {
			out = append(out, v)
		}
		return out
	}
	cases := []struct {
		dataset string
		want    map[uint64][]uint32 // fragment id -> deleted offsets
	}{
		{"default", map[uint64][]uint32{0: seq(0, 100, 10), 1: seq(0, 50, 10)}}, // arrow IPC
		{"bitmap", map[uint64][]uint32{0: seq(0, 12000, 2)}},                    // roaring
		{"stable", map[uint64][]uint32{0: {3}, 1: nil}},                         // stable row ids
		{"v1_20", map[uint64][]uint32{0: nil, 1: nil}},                          // no deletions
	}
	for _, c := range cases {
		t.Run(c.dataset, func(t *testing.T) {
			ds := table.OpenDataset(dirStore{Root: dir}, c.dataset+".lance")
			m, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Len(t, m.Fragments(), len(c.want))
			for _, f := range m.Fragments() {
				dv, err := ds.ReadDeletionVector(ctx, f)
				require.NoError(t, err)
				require.Equal(t, c.want[f.GetId()], dv.Offsets(), "fragment %d", f.GetId())
				for _, off := range c.want[f.GetId()] {
					require.True(t, dv.Contains(uint64(off)))
				}
			}
		})
	}
}

func TestStableRowIDs(t *testing.T) {
	dir, _ := pylanceDatasets(t)
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "stable.lance")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.NotZero(t, m.Proto.GetReaderFeatureFlags()&table.FlagStableRowIDs)
	next := uint64(0)
	for _, f := range m.Fragments() {
		ids, err := table.DecodeRowIDs(f.GetInlineRowIds(), f.GetPhysicalRows())
		require.NoError(t, err)
		for i, id := range ids {
			require.Equal(t, next+uint64(i), id)
		}
		next += uint64(len(ids))
	}
	require.Equal(t, uint64(20), next)
	require.Equal(t, uint64(20), m.Proto.GetNextRowId())
	_, err = table.DecodeRowIDs(m.Fragments()[0].GetInlineRowIds(), 9)
	require.ErrorIs(t, err, table.ErrCorruptFile)
}

func TestTags(t *testing.T) {
	dir, _ := pylanceDatasets(t)
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "default.lance")
	tags, err := ds.Tags(ctx)
	require.NoError(t, err)
	require.Len(t, tags, 2)
	require.Equal(t, "appended", tags[0].Name)
	require.Equal(t, uint64(2), tags[0].Version)
	require.Equal(t, "first", tags[1].Name)
	require.Equal(t, uint64(1), tags[1].Version)
	require.Positive(t, tags[1].ManifestSize)

	for name, v := range map[string]uint64{"first": 1, "appended": 2} {
		m, err := ds.CheckoutTag(ctx, name)
		require.NoError(t, err)
		require.Equal(t, v, m.Version())
	}
	for _, bad := range []string{"nope", "", "../first", "a/b", ".hidden"} {
		_, err := ds.CheckoutTag(ctx, bad)
		require.ErrorIs(t, err, table.ErrTagNotFound, bad)
	}
}

func TestDecodeTag(t *testing.T) {
	cases := []struct {
		name, json string
		want       table.Tag
		wantErr    bool
	}{
		{"camel", `{"branch":null,"version":3,"manifestSize":10}`, table.Tag{Name: "camel", Version: 3, ManifestSize: 10}, false},
		{"snake", `{"version":4,"manifest_size":11}`, table.Tag{Name: "snake", Version: 4, ManifestSize: 11}, false},
		{"branch", `{"branch":"dev","version":5}`, table.Tag{Name: "branch", Version: 5, Branch: "dev"}, false},
		{"noversion", `{"branch":null}`, table.Tag{}, true},
		{"zero", `{"version":0}`, table.Tag{}, true},
		{"string", `{"version":"1"}`, table.Tag{}, true},
		{"notjson", `version=1`, table.Tag{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := table.DecodeTag("_refs/tags/"+c.name+".json", []byte(c.json))
			if c.wantErr {
				require.ErrorIs(t, err, table.ErrCorruptFile)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestCheckoutAsOf(t *testing.T) {
	dir, _ := pylanceDatasets(t)
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "default.lance")
	vs, err := ds.Versions(ctx)
	require.NoError(t, err)
	require.Len(t, vs, 3)
	for _, v := range vs {
		m, err := ds.CheckoutAsOf(ctx, v.Timestamp)
		require.NoError(t, err)
		require.Equal(t, v.Version, m.Version(), "exactly at the commit time")
	}
	m, err := ds.CheckoutAsOf(ctx, vs[1].Timestamp.Add(-time.Nanosecond))
	require.NoError(t, err)
	require.Equal(t, uint64(1), m.Version(), "just before version 2")
	m, err = ds.CheckoutAsOf(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, uint64(3), m.Version())
	_, err = ds.CheckoutAsOf(ctx, vs[0].Timestamp.Add(-time.Second))
	require.ErrorIs(t, err, table.ErrVersionNotFound)
}

func TestVersionNotFound(t *testing.T) {
	ctx := context.Background()
	dir, _ := pylanceDatasets(t)
	ds := table.OpenDataset(dirStore{Root: dir}, "default.lance")
	for _, v := range []uint64{0, 4, 99} {
		_, err := ds.Checkout(ctx, v)
		require.ErrorIs(t, err, table.ErrVersionNotFound)
	}
	empty := table.OpenDataset(dirStore{Root: t.TempDir()}, "missing.lance")
	_, err := empty.LatestVersion(ctx)
	require.ErrorIs(t, err, table.ErrVersionNotFound)
	_, err = empty.Latest(ctx)
	require.ErrorIs(t, err, table.ErrVersionNotFound)
}

// TestLatestVersionIgnoresHintAndStaging checks that discovery lists _versions/ and takes
// the largest committed version, whatever the hint file and staging files say, and costs one
// request.
func TestLatestVersionIgnoresHintAndStaging(t *testing.T) {
	ctx := context.Background()
	store := dirStore{Root: t.TempDir()}
	for _, v := range []uint64{1, 2, 3} {
		data, err := table.EncodeManifest(sampleManifest(v))
		require.NoError(t, err)
		require.NoError(t, store.Put(ctx, "t.lance/_versions/"+table.ManifestName(table.NamingV2, v), data))
	}
	junk := map[string]string{
		"t.lance/_versions/latest_version_hint.json":                `{"version":1}`,
		"t.lance/_versions/18446744073709551611.manifest-0000-uuid": "staged",
		"t.lance/_versions/d9223372036854775899.manifest":           "detached",
		"t.lance/_versions/.tmp_abc":                                "tmp",
		"t.lance/_versions/18446744073709551610.manifest#1":         "staging",
		"t.lance/_latest.manifest":                                  "old",
	}
	for p, s := range junk {
		require.NoError(t, store.Put(ctx, p, []byte(s)))
	}
	counting := lanceio.NewCountingStore(store)
	ds := table.OpenDataset(counting, "t.lance")
	v, err := ds.LatestVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(3), v)
	require.Equal(t, int64(1), counting.Requests())
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(3), m.Version())
}

func TestUnknownReaderFeature(t *testing.T) {
	ctx := context.Background()
	store := dirStore{Root: t.TempDir()}
	cases := []struct {
		flags uint64
		ok    bool
	}{
		{0, true},
		{table.FlagDeletionFiles | table.FlagStableRowIDs, true},
		{table.FlagBasePaths, true}, // read through the bases (bases.go)
		{64, false},
		{1 << 40, false},
	}
	for i, c := range cases {
		m := sampleManifest(uint64(i + 1))
		m.ReaderFeatureFlags = c.flags
		data, err := table.EncodeManifest(m)
		require.NoError(t, err)
		require.NoError(t, store.Put(ctx, "f.lance/_versions/"+table.ManifestName(table.NamingV1, uint64(i+1)), data))
		_, err = table.OpenDataset(store, "f.lance").Checkout(ctx, uint64(i+1))
		if c.ok {
			require.NoError(t, err)
			continue
		}
		require.ErrorIs(t, err, table.ErrUnsupportedFeature)
		var fe *table.UnsupportedFeatureError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, c.flags, fe.Flags)
		require.Equal(t, uint64(i+1), fe.Version)
	}
}

func TestManifestVersionMismatch(t *testing.T) {
	ctx := context.Background()
	store := dirStore{Root: t.TempDir()}
	data, err := table.EncodeManifest(sampleManifest(5))
	require.NoError(t, err)
	require.NoError(t, store.Put(ctx, "x/_versions/2.manifest", data))
	_, err = table.OpenDataset(store, "x").Checkout(ctx, 2)
	require.ErrorIs(t, err, table.ErrCorruptManifest)
	require.Contains(t, err.Error(), "x/_versions/2.manifest")
}
