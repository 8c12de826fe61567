package lancecat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// TestScanStatsBytesRead checks that the readers' catalog.ScanStats add up to exactly what
// the store served for the column data of a scan (after a warm-up scan of every column
// opened the data files: metadata read when a file is first opened is not counted). Without
// a data cache every scan reads its columns from the store; with one (the default), the
// warm-up scan left every page in memory and the scan reads, and reports, 0 bytes.
func TestScanStatsBytesRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int64
	}{{"no-data-cache", -1}, {"data-cache", 0}} {
		t.Run(tc.name, func(t *testing.T) { testScanStatsBytesRead(t, tc.budget) })
	}
}

func testScanStatsBytesRead(t *testing.T, dataCacheBytes int64) {
	dir, _ := tables(t)
	cases := []struct {
		name string
		cols []int
	}{
		{"t20", []int{0, 1, 2, 3, 4, 5, 6}},
		{"t21", []int{0, 1, 2, 3, 4, 5, 6}},
		{"t21", []int{0}},
		{"t22", []int{2, 5}},
		{"t22", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			inner, err := blobstore.Open(ctx, dir)
			require.NoError(t, err)
			store := lanceio.NewCountingStore(inner)
			tbl, err := lancecat.NewWithOptions(store, lancecat.Options{DataCacheBytes: dataCacheBytes}).LoadTable(ctx, c.name, catalog.VersionRef{})
			require.NoError(t, err)
			_, warm := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
			release(warm)
			store.Reset()

			req := catalog.ScanRequest{Columns: c.cols, Limit: -1}
			morsels, err := tbl.Morsels(ctx, req)
			require.NoError(t, err)
			var reported, hit int64
			for _, m := range morsels {
				rr, err := tbl.Scan(ctx, req, m, mem)
				require.NoError(t, err)
				for {
					b, err := rr.Next(ctx)
					require.NoError(t, err)
					if b == nil {
						break
					}
					b.Release()
				}
				st, ok := rr.(catalog.ScanStats)
				require.True(t, ok, "lance readers implement catalog.ScanStats")
				reported += st.BytesRead()
				cs, ok := rr.(catalog.CacheStats)
				require.True(t, ok, "lance readers implement catalog.CacheStats")
				hit += cs.BytesCached()
				require.NoError(t, rr.Close())
			}
			require.Equal(t, store.BytesRead(), reported)
			switch {
			case len(c.cols) == 0:
				require.Zero(t, reported)
				require.Zero(t, hit)
			case dataCacheBytes < 0: // no cache: everything read, nothing from a cache
				require.Positive(t, reported)
				require.Zero(t, hit)
			default: // warm cache: nothing read, the pages from the cache
				require.Zero(t, reported)
				require.Positive(t, hit)
			}
		})
	}
}
