package lancecat_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestUpdateRows replaces rows in one Update commit: the old rows are gone, the new ones are
// there, older versions are unchanged, pylance reads the result and records an Update; a
// compaction of a fragment the update reads makes it a commit conflict.
func TestUpdateRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	c := openCatalog(t, dir)
	b1 := kvBatch(mem, rangeK(0, 20)...)
	defer b1.Release()
	_, err := c.CreateTableWith(ctx, "kv", kvSchema, []arrow.RecordBatch{b1}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)

	// k=3 (fragment 0, offset 3) and k=15 (fragment 1, offset 5) become k=103 and k=115.
	nb1, nb2 := kvBatch(mem, 103), kvBatch(mem, 115)
	defer nb1.Release()
	defer nb2.Release()
	v, err := c.UpdateRows(ctx, "kv", 1, []uint64{3, 1<<32 | 5}, []arrow.RecordBatch{nb1, nb2})
	require.NoError(t, err)
	require.Equal(t, uint64(2), v)
	want := append(slices.DeleteFunc(rangeK(0, 20), func(k int64) bool { return k == 3 || k == 15 }), 103, 115)
	slices.Sort(want)
	require.Equal(t, want, scanKeys(t, c, "kv", catalog.VersionRef{}))
	require.Equal(t, rangeK(0, 20), scanKeys(t, c, "kv", catalog.VersionRef{Version: 1}))

	_, err = c.UpdateRows(ctx, "missing", 1, []uint64{0}, []arrow.RecordBatch{nb1})
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)
	_, err = c.UpdateRows(ctx, "kv", 9, []uint64{0}, []arrow.RecordBatch{nb1})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)

	out, err := exec.Command(testutil.Python(t), "-c", `import sys, lance
ds = lance.dataset(sys.argv[1])
txn = ds.get_transactions(1)[0]
print(ds.version, ds.count_rows(), sorted(ds.to_table().column("k").to_pylist())[-2:],
      type(txn.operation).__name__, txn.operation.update_mode)
`, dir+"/kv.lance").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "2 20 [103, 115] Update rewrite_rows\n", string(out))

	// A compaction rewrites the fragments version 2 reads: an update planned at version 2
	// conflicts.
	_, _, err = c.Compact(ctx, "kv", nil)
	require.NoError(t, err)
	_, err = c.UpdateRows(ctx, "kv", 2, []uint64{0}, []arrow.RecordBatch{nb1})
	require.ErrorIs(t, err, catalog.ErrCommitConflict)
	require.Equal(t, want, scanKeys(t, c, "kv", catalog.VersionRef{}))
}
