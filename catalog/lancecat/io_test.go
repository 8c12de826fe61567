package lancecat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// scanBytes scans cols of every morsel of table name through a fresh catalog over a counting
// store and returns the bytes the scan read and the live rows. A first scan of every column
// opens the data files and reads deletion vectors (cached by the catalog), so the count
// covers column data only; the catalog keeps no data pages (DataCacheBytes -1), which would
// serve the second scan from memory. (A scan without columns opens no data file.)
func scanBytes(t *testing.T, dir, name string, cols []int) (int64, int64) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	inner, err := blobstore.Open(ctx, dir)
	require.NoError(t, err)
	store := lanceio.NewCountingStore(inner)
	tbl, err := lancecat.NewWithOptions(store, lancecat.Options{DataCacheBytes: -1}).LoadTable(ctx, name, catalog.VersionRef{})
	require.NoError(t, err)
	_, warm := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
	release(warm)
	store.Reset()
	_, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: cols, Limit: -1})
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	release(batches)
	return store.BytesRead(), rows
}

func TestProjectionReadsFewerBytes(t *testing.T) {
	dir, _ := tables(t)
	// The file reader coalesces reads with up to 64 KiB of slack, so in the small 2.0 files
	// of t20 (58 KB each) one column costs about a whole file; bigger savings need 2.1+.
	cases := []struct {
		name    string
		divisor int64
	}{{"t20", 1}, {"t21", 2}, {"t22", 2}}
	for _, c := range cases {
		name := c.name
		t.Run(name, func(t *testing.T) {
			all, rowsAll := scanBytes(t, dir, name, []int{0, 1, 2, 3, 4, 5, 6})
			one, rowsOne := scanBytes(t, dir, name, []int{0})
			none, rowsNone := scanBytes(t, dir, name, nil)
			require.Equal(t, rowsAll, rowsOne)
			require.Equal(t, rowsAll, rowsNone)
			require.Less(t, one, all/c.divisor, "one int64 column of seven")
			require.Zero(t, none, "count(*) needs no column data")
			require.Positive(t, one)
		})
	}
}

// TestConcurrentScans scans all morsels of one table snapshot in parallel (run with -race).
func TestConcurrentScans(t *testing.T) {
	dir, expect := tables(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := openCatalog(t, dir).LoadTable(ctx, "t22", catalog.VersionRef{})
	require.NoError(t, err)
	req := catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1}
	morsels, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	counts := make([]int64, len(morsels))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, m := range morsels {
		g.Go(func() error {
			rr, err := tbl.Scan(gctx, req, m, mem)
			if err != nil {
				return err
			}
			defer func() { _ = rr.Close() }()
			for {
				b, err := rr.Next(gctx)
				if err != nil || b == nil {
					return err
				}
				counts[i] += b.NumRows()
				b.Release()
			}
		})
	}
	require.NoError(t, g.Wait())
	var total int64
	for _, c := range counts {
		total += c
	}
	require.Equal(t, expect["t22"].Expected["3"], total)
}
