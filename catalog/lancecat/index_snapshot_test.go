package lancecat_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestStillCurrent checks snapshot identity (what plan caches rely on): the latest version
// stays current until a commit; a pinned version stays current across commits; a table
// dropped and created again up to the same version number is another snapshot.
func TestStillCurrent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	c := openCatalog(t, dir)
	b := kvBatch(mem, rangeK(0, 3)...)
	defer b.Release()
	create := func() {
		_, err := c.CreateTableWith(ctx, "kv", kvSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
		require.NoError(t, err)
	}
	current := func(at catalog.VersionRef, tb catalog.Table) bool {
		ok, err := c.StillCurrent(ctx, "kv", at, tb)
		require.NoError(t, err)
		return ok
	}
	create()
	latest, v1 := catalog.VersionRef{}, catalog.VersionRef{Version: 1}
	t1, err := c.LoadTable(ctx, "kv", latest)
	require.NoError(t, err)
	again, err := c.LoadTable(ctx, "kv", latest)
	require.NoError(t, err)
	require.True(t, current(latest, t1))
	require.True(t, current(v1, t1))
	require.True(t, t1.(interface{ SameSnapshot(catalog.Table) bool }).SameSnapshot(again))

	_, err = c.Append(ctx, "kv", []arrow.RecordBatch{b})
	require.NoError(t, err)
	require.False(t, current(latest, t1), "a commit")
	require.True(t, current(v1, t1), "version 1 is still version 1")
	t2, err := c.LoadTable(ctx, "kv", latest)
	require.NoError(t, err)
	require.True(t, current(latest, t2))

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "kv.lance")))
	create()
	_, err = c.Append(ctx, "kv", []arrow.RecordBatch{b})
	require.NoError(t, err)
	require.False(t, current(latest, t2), "recreated at the same version number")
	require.False(t, current(v1, t1))
	_, err = c.StillCurrent(ctx, "nope", latest, t1)
	require.NoError(t, err, "a name the table was not loaded as is simply not current")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "kv.lance")))
	_, err = c.StillCurrent(ctx, "kv", latest, t2)
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)
}
