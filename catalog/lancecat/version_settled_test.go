package lancecat_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
)

// settledWait is longer than the time after which a local store trusts an unchanged
// _versions/ directory instead of reading it again (internal/blobstore's settledAge): the
// queries after it take the path that stats the directory and its newest manifest only.
const settledWait = 2200 * time.Millisecond

// TestLatestSeesWritersAfterSettling is TestLatestSeesOtherWriters for tables whose last
// commit is older than the store's settling time, so that the query before each change
// resolved the latest version from the remembered listing: commits by pylance, by this
// catalog and by another flightd process (another store over the same directory), and the
// table removed and written again with as many versions as before, are all seen by the very
// next query, and a plan-cache check (StillCurrent) of the table loaded before the change
// says it is stale.
func TestLatestSeesWritersAfterSettling(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for listings to settle")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	uri := filepath.Join(dir, "t.lance")
	c := openCatalog(t, dir)
	load := func() (catalog.Table, uint64, []int64) {
		tbl, xs := tableXs(ctx, t, mem, c, catalog.VersionRef{})
		return tbl, tbl.Version(), xs
	}
	appendRows := func(cat interface {
		Append(context.Context, string, []arrow.RecordBatch) (uint64, error)
	}, lo, hi int64) {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for x := lo; x < hi; x++ {
			b.Append(x)
		}
		col := b.NewArray()
		defer col.Release()
		batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil),
			[]arrow.Array{col}, hi-lo)
		defer batch.Release()
		_, err := cat.Append(ctx, "t", []arrow.RecordBatch{batch})
		require.NoError(t, err)
	}
	pylanceWrite(t, uri, "create", 0, 10)

	for _, step := range []struct {
		name            string
		write           func()
		before, version uint64
		want            []int64
	}{
		{"pylance append", func() { pylanceWrite(t, uri, "append", 10, 12) }, 1, 2, rangeK(0, 12)},
		{"removed and written again with as many versions", func() {
			require.NoError(t, os.RemoveAll(uri))
			pylanceWrite(t, uri, "create", 20, 21)
			pylanceWrite(t, uri, "append", 21, 23)
		}, 2, 2, rangeK(20, 3)},
		{"this catalog appends", func() { appendRows(c, 23, 25) }, 2, 3, rangeK(20, 5)},
		{"another flightd appends", func() { appendRows(openCatalog(t, dir), 25, 26) }, 3, 4, rangeK(20, 6)},
		{"pylance appends the next version", func() { pylanceWrite(t, uri, "append", 26, 27) }, 4, 5, rangeK(20, 7)},
		{"pylance overwrite", func() { pylanceWrite(t, uri, "overwrite", 100, 102) }, 5, 6, rangeK(100, 2)},
	} {
		t.Run(step.name, func(t *testing.T) {
			time.Sleep(settledWait)
			before, v, _ := load() // resolved from the remembered listing
			require.Equal(t, step.before, v)
			step.write()
			_, v, got := load()
			require.Equal(t, step.version, v)
			require.Equal(t, step.want, got)
			current, err := c.StillCurrent(ctx, "t", catalog.VersionRef{}, before)
			require.NoError(t, err)
			require.False(t, current, "a plan over the table loaded before the change is stale")
		})
	}
}

// tableXs loads table t at `at` and returns it and its x values (column 0, int64), sorted.
func tableXs(ctx context.Context, t *testing.T, mem memory.Allocator, c *lancecat.Catalog, at catalog.VersionRef) (catalog.Table, []int64) {
	t.Helper()
	tbl, err := c.LoadTable(ctx, "t", at)
	require.NoError(t, err)
	_, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
	defer release(batches)
	var out []int64
	for _, b := range batches {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	slices.Sort(out)
	return tbl, out
}
