package lancecat

import (
	"context"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/table"
)

// cacheOp is one step of a byteCache scenario: add (cost > 0) or get (cost == 0).
type cacheOp struct {
	key  string
	cost int64
}

func TestByteCacheEvictsByBytes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int64
		ops    []cacheOp
		keys   []string // cached afterwards
		bytes  int64
	}{
		{name: "fits", budget: 100, ops: []cacheOp{{"a", 40}, {"b", 60}}, keys: []string{"a", "b"}, bytes: 100},
		{name: "oldest evicted", budget: 100, ops: []cacheOp{{"a", 40}, {"b", 40}, {"c", 40}}, keys: []string{"b", "c"}, bytes: 80},
		{name: "get refreshes recency", budget: 100, ops: []cacheOp{{"a", 40}, {"b", 40}, {"a", 0}, {"c", 40}},
			keys: []string{"a", "c"}, bytes: 80},
		{name: "one big value evicts several", budget: 100, ops: []cacheOp{{"a", 30}, {"b", 30}, {"c", 30}, {"d", 90}},
			keys: []string{"d"}, bytes: 90},
		{name: "value over budget not cached", budget: 100, ops: []cacheOp{{"a", 30}, {"big", 101}}, keys: []string{"a"}, bytes: 30},
		{name: "replacement re-weighs", budget: 100, ops: []cacheOp{{"a", 30}, {"b", 30}, {"a", 70}}, keys: []string{"a", "b"}, bytes: 100},
		{name: "replacement over budget drops the old value", budget: 100, ops: []cacheOp{{"a", 30}, {"a", 200}}, bytes: 0},
		{name: "disabled", budget: 0, ops: []cacheOp{{"a", 1}}, bytes: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newByteCache[string, int](tc.budget)
			for i, op := range tc.ops {
				if op.cost == 0 {
					_, ok := c.Get(op.key)
					require.True(t, ok, "step %d: get %s", i, op.key)
					continue
				}
				c.Add(op.key, i, op.cost)
				require.LessOrEqual(t, c.Bytes(), tc.budget, "step %d", i)
			}
			require.Equal(t, tc.bytes, c.Bytes())
			require.Equal(t, len(tc.keys), c.Len())
			for _, k := range tc.keys {
				require.True(t, c.Contains(k), k)
			}
		})
	}
}

func TestCacheBudgets(t *testing.T) {
	for _, tc := range []struct {
		opts        Options
		manifests   int64
		files       int64
		description string
	}{
		{Options{}, DefaultCacheBytes / 4, DefaultCacheBytes - DefaultCacheBytes/4, "default"},
		{Options{CacheBytes: 1000}, 250, 750, "split a quarter for manifests"},
		{Options{CacheBytes: -1}, 0, 0, "disabled"},
	} {
		m, f := tc.opts.cacheBudgets()
		require.Equal(t, tc.manifests, m, tc.description)
		require.Equal(t, tc.files, f, tc.description)
	}
}

var cacheTestSchema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)

func cacheTestBatch(mem memory.Allocator, first, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, cacheTestSchema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(first + i)
	}
	return b.NewRecordBatch()
}

// sumK scans every row of tbl and returns the sum of k and the row count.
func sumK(t *testing.T, tbl catalog.Table, mem memory.Allocator) (sum, rows int64) {
	ctx := context.Background()
	req := catalog.ScanRequest{Columns: []int{0}, Limit: -1}
	ms, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	for _, m := range ms {
		rr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		for {
			b, err := rr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			for _, v := range b.Column(0).(*array.Int64).Int64Values() {
				sum += v
			}
			rows += b.NumRows()
			b.Release() // the reader hands over its batches
		}
		require.NoError(t, rr.Close())
	}
	return sum, rows
}

// TestCatalogCachesStayWithinBudget loads every version of a table with 12 versions (one
// fragment per append) through a catalog whose budgets hold only a few manifests and data
// files: the caches never exceed their byte budgets, old entries are evicted, and reads
// after eviction are still right.
func TestCatalogCachesStayWithinBudget(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, t.TempDir())
	require.NoError(t, err)
	const versions = 12
	w := New(store)
	b := cacheTestBatch(mem, 0, 100)
	_, err = w.CreateTable(ctx, "t", cacheTestSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
	b.Release()
	require.NoError(t, err)
	for v := int64(2); v <= versions; v++ {
		b := cacheTestBatch(mem, (v-1)*100, 100)
		_, err = w.Append(ctx, "t", []arrow.RecordBatch{b})
		b.Release()
		require.NoError(t, err)
	}

	// Measure one version's entries with an unbounded catalog, then size the budgets to
	// hold about three manifests of the newest (largest) version and three data files.
	probe := New(store)
	last, err := probe.LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)
	sumK(t, last, mem)
	manifestBytes := probe.manifests.Bytes()
	fileBytes := probe.files.Bytes() / versions
	require.Positive(t, manifestBytes)
	require.Positive(t, fileBytes)
	c := New(store)
	mb, fb := 3*manifestBytes, 3*fileBytes
	c.manifests = newByteCache[manifestKey, *table.Manifest](mb)
	c.files = newByteCache[string, dataFile](fb)

	for v := uint64(1); v <= versions; v++ {
		tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{Version: v})
		require.NoError(t, err)
		sum, rows := sumK(t, tbl, mem)
		n := int64(v) * 100
		require.Equal(t, n, rows, "version %d", v)
		require.Equal(t, n*(n-1)/2, sum, "version %d", v)
		require.LessOrEqual(t, c.manifests.Bytes(), mb, "version %d", v)
		require.LessOrEqual(t, c.files.Bytes(), fb, "version %d", v)
	}
	require.Less(t, c.manifests.Len(), versions, "old manifests were evicted")
	require.Positive(t, c.manifests.Len())
	require.Less(t, c.files.Len(), versions, "old data files were evicted")
	require.Positive(t, c.files.Len())

	// Version 1 was evicted; loading it again reads it again, correctly.
	tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{Version: 1})
	require.NoError(t, err)
	sum, rows := sumK(t, tbl, mem)
	require.Equal(t, int64(100), rows)
	require.Equal(t, int64(99*100/2), sum)

	off := NewWithOptions(store, Options{CacheBytes: -1})
	tbl, err = off.LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)
	_, rows = sumK(t, tbl, mem)
	require.Equal(t, int64(versions*100), rows)
	require.Zero(t, off.manifests.Len()+off.files.Len(), "a negative budget disables the caches")
}

func TestManifestCostGrowsWithFragments(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, t.TempDir())
	require.NoError(t, err)
	c := New(store)
	var costs []int64
	for i := range 3 {
		b := cacheTestBatch(mem, int64(i), 1)
		if i == 0 {
			_, err = c.CreateTable(ctx, "t"+strconv.Itoa(0), cacheTestSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
		} else {
			_, err = c.Append(ctx, "t0", []arrow.RecordBatch{b})
		}
		b.Release()
		require.NoError(t, err)
		ds, err := c.Dataset("t0")
		require.NoError(t, err)
		m, err := ds.Latest(ctx)
		require.NoError(t, err)
		costs = append(costs, manifestCost(m))
	}
	require.Less(t, costs[0], costs[1])
	require.Less(t, costs[1], costs[2])
}
