package table_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/table"
)

// pylanceStaleWriters deletes and appends through dataset handles opened at version 1, so
// Lance must read our transactions to check for conflicts before committing.
const pylanceStaleWriters = `
import sys, lance, pyarrow as pa
uri = sys.argv[1].rsplit("@", 1)[0]
lance.dataset(uri, version=1).delete("id = 25")
sc = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
old = lance.dataset(uri, version=1)
lance.write_dataset(pa.table({"id": [300], "name": ["n300"]}, schema=sc), old, mode="append")
# fragment 0 was rewritten by us: Lance must see the conflict and re-plan the delete
lance.dataset(uri, version=1).delete("id = 3")
`

// TestPylanceRebasesOverOurCommits: pylance writers planned on an old version read our
// transaction files to check conflicts, rebase over compatible ones, and re-plan a delete
// of a fragment we rewrote (pylance retries retryable conflicts of deletes itself).
func TestPylanceRebasesOverOurCommits(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b := idNameBatch(mem, 0, 30)
	defer b.Release()
	v1, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)
	e := env{ctx: ctx, mem: mem, ds: ds, dir: dir, v1: v1}
	_, err = ds.Commit(ctx, 1, appendOp(t, ctx, mem, ds, v1, 100, 2), nil) // v2
	require.NoError(t, err)
	_, err = ds.DeleteRows(ctx, 2, map[uint64][]uint32{2: {1}}, "id = 21") // v3
	require.NoError(t, err)
	_, err = ds.Commit(ctx, 1, rewriteOp(t, e, 0), nil) // v4: fragment 0 -> fragment 4
	require.NoError(t, err)

	var views []pyView
	require.NoError(t, json.Unmarshal(runPy(t, pylanceStaleWriters+pyViewScript, dir+"@0"), &views))
	v := views[0]
	require.Equal(t, seqU(1, 7), v.Versions)
	require.Equal(t, append(without(seq(0, 30), 3, 21, 25), 100, 101, 300), v.IDs)
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, fragmentIDs(m), "fragment 0 stays gone")
	dv, err := ds.ReadDeletionVector(ctx, m.Fragments()[3])
	require.NoError(t, err)
	require.Equal(t, []uint32{3}, dv.Offsets(), "id 3 deleted in our rewritten fragment")
}
