package index_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// predCase is one predicate: the SQL pylance scans with, and our Query on an index.
type predCase struct {
	index string
	sql   string
	q     index.Query
	kind  index.Kind
}

func i64(v int64) scalar.Scalar                        { return scalar.NewInt64Scalar(v) }
func i32(v int32) scalar.Scalar                        { return scalar.NewInt32Scalar(v) }
func f64(v float64) scalar.Scalar                      { return scalar.NewFloat64Scalar(v) }
func str(v string) scalar.Scalar                       { return scalar.NewStringScalar(v) }
func q(op index.Op, vals ...scalar.Scalar) index.Query { return index.Query{Op: op, Values: vals} }

var predCases = []predCase{
	{"i_btree", "i = 3", q(index.OpEq, i64(3)), index.Exact},
	{"i_btree", "i IN (3, 17, 99)", q(index.OpIn, i64(3), i64(17), i64(99)), index.Exact},
	{"i_btree", "i < 5", q(index.OpLt, i64(5)), index.Exact},
	{"i_btree", "i <= 5", q(index.OpLe, i64(5)), index.Exact},
	{"i_btree", "i > 45", q(index.OpGt, i64(45)), index.Exact},
	{"i_btree", "i >= 45", q(index.OpGe, i64(45)), index.Exact},
	{"i_btree", "i BETWEEN 10 AND 12", q(index.OpBetween, i64(10), i64(12)), index.Exact},
	{"i_btree", "i BETWEEN 12 AND 10", q(index.OpBetween, i64(12), i64(10)), index.Exact},
	{"i_btree", "i IS NULL", q(index.OpIsNull), index.Exact},
	{"i_btree", "i IS NOT NULL", q(index.OpIsNotNull), index.Exact},
	{"i_btree", "i = 1000", q(index.OpEq, i64(1000)), index.Exact},
	{"u_btree", "u = 5000", q(index.OpEq, i64(5000)), index.Exact},
	{"u_btree", "u BETWEEN 4090 AND 4200", q(index.OpBetween, i64(4090), i64(4200)), index.Exact},
	{"u_btree", "u > 11990", q(index.OpGt, i64(11990)), index.Exact},
	{"s_bitmap", "s = 'v003'", q(index.OpEq, str("v003")), index.Exact},
	{"s_bitmap", "s IN ('v001', 'v029', 'nope')", q(index.OpIn, str("v001"), str("v029"), str("nope")), index.Exact},
	{"s_bitmap", "s < 'v005'", q(index.OpLt, str("v005")), index.Exact},
	{"s_bitmap", "s >= 'v025'", q(index.OpGe, str("v025")), index.Exact},
	{"s_bitmap", "s BETWEEN 'v010' AND 'v012'", q(index.OpBetween, str("v010"), str("v012")), index.Exact},
	{"s_bitmap", "s IS NULL", q(index.OpIsNull), index.Exact},
	{"s_bitmap", "s IS NOT NULL", q(index.OpIsNotNull), index.Exact},
	{"l_label_list", "array_has_any(l, make_array('a1', 'b2'))", q(index.OpArrayHasAny, str("a1"), str("b2")), index.Exact},
	{"l_label_list", "array_has_all(l, make_array('a1', 'b2'))", q(index.OpArrayHasAll, str("a1"), str("b2")), index.Exact},
	{"l_label_list", "array_has_all(l, make_array('a1', 'zz'))", q(index.OpArrayHasAll, str("a1"), str("zz")), index.Exact},
	{"f_zonemap", "f < 100", q(index.OpLt, f64(100)), index.AtMost},
	{"f_zonemap", "f > 3000", q(index.OpGt, f64(3000)), index.AtMost},
	{"f_zonemap", "f BETWEEN 1000 AND 1001", q(index.OpBetween, f64(1000), f64(1001)), index.AtMost},
	{"f_zonemap", "f = 500", q(index.OpEq, f64(500)), index.AtMost},
	{"f_zonemap", "f IS NULL", q(index.OpIsNull), index.AtMost},
	{"k_bloomfilter", "k = 5000", q(index.OpEq, i32(5000)), index.AtMost},
	{"k_bloomfilter", "k IN (10, 8010)", q(index.OpIn, i64(10), i64(8010)), index.AtMost},
	{"k_bloomfilter", "k IS NULL", q(index.OpIsNull), index.AtMost},
	{"name_bloomfilter", "name = 'n00042'", q(index.OpEq, str("n00042")), index.AtMost},
	{"k_bloomfilter", "k < 10", q(index.OpLt, i64(10)), index.NotAnswerable},
	{"l_label_list", "l IS NULL", q(index.OpIsNull), index.Exact},
	{"l_label_list", "l IS NOT NULL", q(index.OpIsNotNull), index.NotAnswerable},
	{"s_bitmap", "array_has_any(l, make_array('a1'))", q(index.OpArrayHasAny, str("a1")), index.NotAnswerable},
}

// wantZones is, for some AtMost cases, the exact fragments the index must keep (one zone
// per 4000-row fragment), proving the answer prunes.
var wantZones = map[string][]uint32{
	"f < 100": {0}, "f > 3000": {2}, "f BETWEEN 1000 AND 1001": {0}, "f = 500": {0},
	"k = 5000": {1}, "k IN (10, 8010)": {0, 2}, "name = 'n00042'": {0},
}

func TestSearchAgainstPylance(t *testing.T) {
	t.Parallel()
	dir := sharedDataset(t)
	truth := sharedTruth(t)
	live := index.RowSetOf(truth.Live...)

	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)

	for _, c := range predCases {
		t.Run(c.sql, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == c.index })
			require.GreaterOrEqual(t, i, 0, "index %s not listed", c.index)
			ix, err := index.Open(ctx, ds, m, infos[i], mem)
			require.NoError(t, err)
			res, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, c.kind, res.Kind, res.Reason)
			if c.kind == index.NotAnswerable {
				require.NotEmpty(t, res.Reason)
				return
			}
			wantCovered := []uint32{0, 1, 2} // fragment 3 was appended after the index was built
			if c.index == "i_btree" || c.index == "s_bitmap" {
				wantCovered = []uint32{0, 1, 2, 3} // plus a delta segment for fragment 3
			}
			require.Equal(t, wantCovered, res.Covered)
			want := coveredRows(truth.Results[c.sql], res.Covered)
			switch c.kind {
			case index.Exact:
				got := res.Rows
				got.Intersect(live)
				require.Equal(t, want, coveredRows(got.Addrs(), res.Covered))
			case index.AtMost:
				for _, a := range want {
					require.True(t, res.MayContain(a), "row %d:%d matches but is excluded", a>>32, a&0xFFFFFFFF)
				}
				if wz, ok := wantZones[c.sql]; ok {
					var frags []uint32
					for _, z := range res.Zones {
						frags = append(frags, z.Fragment)
					}
					require.Equal(t, wz, frags)
				}
			}
		})
	}
}

// coveredRows keeps the addresses in covered fragments, sorted (never nil).
func coveredRows(addrs []uint64, covered []uint32) []uint64 {
	out := []uint64{}
	for _, a := range addrs {
		if _, ok := slices.BinarySearch(covered, uint32(a>>32)); ok {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

func TestListAgainstPylance(t *testing.T) {
	t.Parallel()
	dir := sharedDataset(t)
	var want []struct {
		Name     string   `json:"name"`
		Type     string   `json:"type"`
		Fields   []string `json:"fields"`
		Segments []struct {
			UUID      string   `json:"uuid"`
			Fragments []uint32 `json:"fragments"`
		} `json:"segments"`
	}
	require.NoError(t, json.Unmarshal(oracle(t, "describe", dir, nil), &want))
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: dir}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	require.Len(t, infos, len(want))
	for _, in := range infos {
		if in.Name == "i_btree" || in.Name == "s_bitmap" {
			require.Len(t, in.Segments, 2, "%s has a delta segment", in.Name)
			require.Equal(t, []uint32{0, 1, 2, 3}, in.Covered())
		}
	}
	for _, w := range want {
		i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == w.Name })
		require.GreaterOrEqual(t, i, 0, w.Name)
		got := infos[i]
		require.Equal(t, w.Type, got.Type.String())
		require.True(t, got.Supported())
		require.Len(t, got.Segments, len(w.Segments))
		for j, s := range w.Segments {
			require.Equal(t, s.UUID, got.Segments[j].UUID)
			require.Equal(t, s.Fragments, got.Segments[j].Fragments)
			require.True(t, got.Segments[j].FragmentsKnown)
		}
		require.Len(t, got.Fields, 1)
		f := m.Fields()[slices.IndexFunc(m.Fields(), func(f *lancepb.Field) bool { return f.GetId() == got.Fields[0] })]
		require.Equal(t, w.Fields[0], f.GetName())
	}
}

// BTree point lookups read page_lookup and then one page of page_data only.
func TestBTreePointLookupIsLazy(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "big.lance")
	oracle(t, "build_big", dir, nil)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cs := lanceio.NewCountingStore(dirStore{Root: dir})
	ds := table.OpenDataset(cs, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	seg := infos[0].Segments[0]
	ix, err := index.Open(ctx, ds, m, infos[0], mem)
	require.NoError(t, err)
	dataSize, err := dirStore{Root: dir}.Size(ctx, seg.Dir+"/page_data.lance")
	require.NoError(t, err)

	for i, c := range []struct {
		value    int64
		wantAddr uint64
	}{{150_000, 1<<32 | 50_000}, {7, 7}, {99_999, 99_999}} {
		cs.Reset()
		res, err := ix.Search(ctx, q(index.OpEq, i64(c.value)))
		require.NoError(t, err)
		require.Equal(t, []uint64{c.wantAddr}, res.Rows.Addrs())
		t.Logf("lookup %d: %d bytes in %d requests; page_data has %d bytes", c.value, cs.BytesRead(), cs.Requests(), dataSize)
		require.Less(t, cs.BytesRead(), dataSize/8, "a point lookup must read one page, not the file")
		if i > 0 {
			require.LessOrEqual(t, cs.Requests(), int64(4), "page_data metadata is read once: only page buffers of two columns")
		}
	}
}

// openShared opens an index of the shared pylance dataset (Go allocator: the index holds no
// Arrow memory between calls).
func openShared(t *testing.T, name string) index.Index {
	t.Helper()
	ctx := context.Background()
	ds := table.OpenDataset(dirStore{Root: sharedDataset(t)}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	ix, err := index.Open(ctx, ds, m, infos[i], memory.NewGoAllocator())
	require.NoError(t, err)
	return ix
}

// Concurrent searches on one index (the BTree opens page_data lazily) are race-free and
// agree with each other.
func TestConcurrentSearch(t *testing.T) {
	t.Parallel()
	ix := openShared(t, "u_btree")
	var g errgroup.Group
	g.SetLimit(4)
	results := make([][]uint64, 16)
	for i := range results {
		g.Go(func() error {
			res, err := ix.Search(context.Background(), q(index.OpBetween, i64(4090), i64(4100)))
			if err == nil {
				results[i] = res.Rows.Addrs()
			}
			return err
		})
	}
	require.NoError(t, g.Wait())
	require.Len(t, results[0], 11)
	for _, r := range results {
		require.Equal(t, results[0], r)
	}
}
