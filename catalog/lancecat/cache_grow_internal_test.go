package lancecat

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/file"
)

func TestByteCacheGrow(t *testing.T) {
	type grow struct {
		key   string
		same  bool // whether the value under key is the one that grows
		delta int64
	}
	for _, tc := range []struct {
		name  string
		adds  []cacheOp // added in order, value = index
		grows []grow
		keys  []string // cached afterwards
		bytes int64
	}{
		{name: "grows in place", adds: []cacheOp{{"a", 10}, {"b", 10}}, grows: []grow{{"a", true, 30}},
			keys: []string{"a", "b"}, bytes: 50},
		{name: "growth evicts the oldest other", adds: []cacheOp{{"a", 40}, {"b", 40}}, grows: []grow{{"b", true, 30}},
			keys: []string{"b"}, bytes: 70},
		{name: "growth keeps recency", adds: []cacheOp{{"a", 40}, {"b", 40}}, grows: []grow{{"a", true, 10}, {"b", true, 15}},
			keys: []string{"b"}, bytes: 55},
		{name: "grown past the budget is dropped", adds: []cacheOp{{"a", 40}, {"b", 40}}, grows: []grow{{"a", true, 70}},
			keys: []string{"b"}, bytes: 40},
		{name: "another value under the key is left alone", adds: []cacheOp{{"a", 40}}, grows: []grow{{"a", false, 30}},
			keys: []string{"a"}, bytes: 40},
		{name: "missing key", adds: []cacheOp{{"a", 40}}, grows: []grow{{"z", true, 30}}, keys: []string{"a"}, bytes: 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newByteCache[string, int](100)
			for i, op := range tc.adds {
				c.Add(op.key, i, op.cost)
			}
			for _, g := range tc.grows {
				c.Grow(g.key, func(int) bool { return g.same }, g.delta)
				require.LessOrEqual(t, c.Bytes(), int64(100))
			}
			require.Equal(t, tc.bytes, c.Bytes())
			require.Equal(t, len(tc.keys), c.Len())
			for _, k := range tc.keys {
				require.True(t, c.Contains(k), k)
			}
		})
	}
	require.Equal(t, int64(100), newByteCache[string, int](100).Budget())
}

// TestDataFileKeepsChunkTables checks that a scan leaves the parsed chunk tables with the
// cached data-file reader and that the data-file cache counts them, and that a catalog
// with caching off keeps none.
func TestDataFileKeepsChunkTables(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, t.TempDir())
	require.NoError(t, err)
	c := New(store)
	b := cacheTestBatch(mem, 0, 5000)
	_, err = c.CreateTable(ctx, "t", cacheTestSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
	b.Release()
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		cat  *Catalog
		kept bool
	}{
		{"cached", New(store), true},
		{"caching off", NewWithOptions(store, Options{CacheBytes: -1}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := tc.cat.LoadTable(ctx, "t", catalog.VersionRef{})
			require.NoError(t, err)
			tbl := tb.(*Table)
			df, err := tbl.reader(ctx, 0, 0)
			require.NoError(t, err)
			fr, ok := df.(*file.Reader)
			require.True(t, ok, "a 2.x data file")
			opened := tc.cat.files.Bytes()
			sum, rows := sumK(t, tbl, mem)
			require.Equal(t, int64(5000), rows)
			require.Equal(t, int64(4999*5000/2), sum)
			if !tc.kept {
				require.Zero(t, fr.MetaBytes())
				return
			}
			require.Positive(t, fr.MetaBytes())
			require.Equal(t, opened+fr.MetaBytes(), tc.cat.files.Bytes())
			again, rows := sumK(t, tbl, mem) // served from the kept tables
			require.Equal(t, sum, again)
			require.Equal(t, int64(5000), rows)
			require.Equal(t, opened+fr.MetaBytes(), tc.cat.files.Bytes(), "kept once")
		})
	}
}
