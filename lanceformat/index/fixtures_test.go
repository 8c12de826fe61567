package index_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/table"
)

// listFixture lists the indices of the latest version of an old-Lance fixture.
func listFixture(t *testing.T, rel string) (*table.Dataset, *table.Manifest, []index.Info) {
	t.Helper()
	dir := filepath.Join(testutil.SharedFixtures(t), rel)
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	return ds, m, infos
}

func TestListFixtures(t *testing.T) {
	type seg struct {
		uuid    string
		frags   []uint32
		created bool
	}
	for _, c := range []struct {
		rel, name, url string
		typ            index.Type
		fields         []int32
		segs           []seg
	}{
		// 0.36.0 wrote the details type URL in the wrong proto package.
		{"0.36.0/btree_in_index_pkg.lance", "x_idx", "/lance.index.pb.BTreeIndexDetails", index.TypeBTree, []int32{0},
			[]seg{{"a71ff08b-bb4c-4f4d-9cd0-a88e2684fc7b", []uint32{0}, true}}},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "/lance.table.BTreeIndexDetails", index.TypeBTree, []int32{1},
			[]seg{{"e034c4d8-77cd-422c-8855-209eed8deff8", []uint32{0}, false}}},
		// No index_details: the type is inferred from the files.
		{"v0.18.2/index_no_details.lance", "id_idx", "", index.TypeBTree, []int32{0},
			[]seg{{"f1fc279b-59f2-4617-a3e7-057af5fee009", []uint32{0}, false}}},
		{"v0.30.0_pre_created_at/index_without_created_at", "vec_idx", "/lance.table.VectorIndexDetails", index.TypeVector, []int32{1},
			[]seg{{"37929a30-7178-4a99-bcca-2eaaa3b08b46", []uint32{0}, false}}},
		{"0.27.0/legacy_fts_index", "text_idx", "/lance.table.InvertedIndexDetails", index.TypeInverted, []int32{0},
			[]seg{{"14e07e1c-324a-4bae-bc3a-753ed66d41fc", []uint32{0}, false}}},
		{"v0.21.0/bad_index_fragment_bitmap", "vector_idx", "/lance.table.VectorIndexDetails", index.TypeVector, []int32{0},
			[]seg{{"dc833a6e-a710-48aa-af24-9ab80f30700c", []uint32{0}, false}, {"ca9b1111-abfc-4fde-b4cc-8e667b84e65d", []uint32{0, 1}, false}}},
	} {
		t.Run(c.rel, func(t *testing.T) {
			_, _, infos := listFixture(t, c.rel)
			i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == c.name })
			require.GreaterOrEqual(t, i, 0)
			in := infos[i]
			require.Equal(t, c.typ, in.Type)
			require.Equal(t, c.url, in.TypeURL)
			require.Equal(t, c.fields, in.Fields)
			require.Equal(t, c.typ.Supported(), in.Supported())
			require.Len(t, in.Segments, len(c.segs))
			for j, s := range c.segs {
				require.Equal(t, s.uuid, in.Segments[j].UUID)
				require.Equal(t, s.frags, in.Segments[j].Fragments)
				require.Equal(t, s.created, in.Segments[j].CreatedAtMillis > 0)
				require.Equal(t, "_indices/"+s.uuid, in.Segments[j].Dir)
			}
		})
	}
}

// Fragment bitmaps naming fragments that no longer exist are clipped to the manifest's.
func TestListClipsStaleFragments(t *testing.T) {
	_, m, infos := listFixture(t, "v0.8.14/corrupt_index")
	live := map[uint32]bool{}
	for _, f := range m.Fragments() {
		live[uint32(f.GetId())] = true
	}
	require.Len(t, infos, 1)
	require.Equal(t, index.TypeVector, infos[0].Type) // no details; inferred from index.idx
	require.False(t, infos[0].Supported())
	for _, f := range infos[0].Segments[0].Fragments {
		require.True(t, live[f], "fragment %d is not in the manifest", f)
	}
}

func TestSearchFixtures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rel, name, sql string
		q              index.Query
	}{
		{"0.36.0/btree_in_index_pkg.lance", "x_idx", "x = 500", q(index.OpEq, i64(500))},
		{"0.36.0/btree_in_index_pkg.lance", "x_idx", "x BETWEEN 10 AND 20", q(index.OpBetween, i64(10), i64(20))},
		{"0.36.0/btree_in_index_pkg.lance", "x_idx", "x IS NULL", q(index.OpIsNull)},
		{"0.36.0/btree_in_index_pkg.lance", "x_idx", "x >= 990", q(index.OpGe, i64(990))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "bitmap_idx", "bitmap = 3", q(index.OpEq, i64(3))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "bitmap_idx", "bitmap > 1", q(index.OpGt, i64(1))},
		// BTrees in legacy v1 index files (page_lookup.lance, page_data.lance).
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree = 3", q(index.OpEq, i64(3))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree BETWEEN 2 AND 3", q(index.OpBetween, i64(2), i64(3))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree IN (1, 4, 9)", q(index.OpIn, i64(1), i64(4), i64(9))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree > 2", q(index.OpGt, i64(2))},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree IS NULL", q(index.OpIsNull)},
		{"v0.20.0/old_btree_bitmap_indices.lance", "btree_idx", "btree = 7", q(index.OpEq, i64(7))},
		{"v0.18.2/index_no_details.lance", "id_idx", "id = 3", q(index.OpEq, i64(3))},
		{"v0.18.2/index_no_details.lance", "id_idx", "id < 10", q(index.OpLt, i64(10))},
		{"v0.18.2/index_no_details.lance", "id_idx", "id IN (5, 50, 500)", q(index.OpIn, i64(5), i64(50), i64(500))},
		{"v0.18.2/index_no_details.lance", "id_idx", "id >= 95", q(index.OpGe, i64(95))},
		{"v0.18.2/index_no_details.lance", "id_idx", "id IS NULL", q(index.OpIsNull)},
	}
	// One pylance run per fixture answers all its filters.
	sqls := map[string][]string{}
	for _, c := range cases {
		sqls[c.rel] = append(sqls[c.rel], c.sql)
	}
	truth := map[string]map[string][]uint64{}
	for rel, list := range sqls {
		var out struct {
			Results map[string][]uint64 `json:"results"`
		}
		require.NoError(t, json.Unmarshal(oracle(t, "query", filepath.Join(testutil.SharedFixtures(t), rel), list), &out))
		truth[rel] = out.Results
	}
	for _, c := range cases {
		t.Run(c.rel+"/"+c.sql, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			ds, m, infos := listFixture(t, c.rel)
			i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == c.name })
			require.GreaterOrEqual(t, i, 0)
			ix, err := index.Open(ctx, ds, m, infos[i], mem)
			require.NoError(t, err)
			res, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, index.Exact, res.Kind)
			want := truth[c.rel][c.sql]
			require.Equal(t, coveredRows(want, res.Covered), coveredRows(res.Rows.Addrs(), res.Covered))
		})
	}
}

// Indices of datasets with stable row ids may hold row ids instead of addresses (pylance
// 14 BITMAPs do): they open and answer them (catalog/lancecat maps them to addresses);
// building one is not supported yet.
func TestStableRowIDsIndexes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "stable.lance")
	oracle(t, "build_stable", dir, nil)
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	ix, err := index.Open(ctx, ds, m, infos[0], memory.NewGoAllocator())
	require.NoError(t, err)
	res, err := ix.Search(ctx, q(index.OpBetween, i64(10), i64(12)))
	require.NoError(t, err)
	require.Equal(t, index.Exact, res.Kind)
	// i = k % 50 (null for k % 7 = 0) over rows k = 0..99, whose row ids are 0..99.
	require.Equal(t, []uint64{10, 11, 12, 60, 61, 62}, res.Rows.Addrs())
	_, _, err = index.Build(ctx, ds, m, "x", infos[0].Fields[0], index.TypeBTree, nil, memory.NewGoAllocator())
	require.ErrorIs(t, err, index.ErrNotSupported)
}
