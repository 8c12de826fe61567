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

const pylanceWritesScript = `
import sys, lance, pyarrow as pa
uri = sys.argv[1].rsplit("@", 1)[0]
sc = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
t = pa.table({"id": list(range(200, 205)), "name": ["n%d" % i for i in range(200, 205)]}, schema=sc)
lance.write_dataset(t, uri, mode="append")
ds = lance.dataset(uri)
ds.delete("id = 0")
ds.optimize.compact_files()
ds = lance.dataset(uri)
ds.update_config({"x.key": "1"})
ds.update_metadata({"owner": "me"})
`

// TestPylanceAndUsTakeTurns: we create and delete, pylance appends, deletes and compacts,
// then we delete (by pylance's row addresses) and append again; both sides agree.
func TestPylanceAndUsTakeTurns(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b := idNameBatch(mem, 0, 20)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)
	_, err = ds.DeleteRows(ctx, 1, map[uint64][]uint32{0: {3}}, "id = 3")
	require.NoError(t, err)

	// pylance writes, then reports what it sees (one python process)
	var views []pyView
	require.NoError(t, json.Unmarshal(runPy(t, pylanceWritesScript+pyViewScript, dir+"@0"), &views))
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	var ops []string
	for v := uint64(1); v <= m.Version(); v++ {
		mv, err := ds.Checkout(ctx, v)
		require.NoError(t, err)
		txn, err := ds.ReadTransaction(ctx, mv)
		require.NoError(t, err)
		ops = append(ops, table.OperationName(txn))
	}
	require.Equal(t, []string{"overwrite", "delete", "append", "delete", "reserve_fragments", "rewrite", "update_config", "update_config"}, ops)
	var live uint64
	for _, f := range m.Fragments() {
		dv, err := ds.ReadDeletionVector(ctx, f)
		require.NoError(t, err)
		live += f.GetPhysicalRows() - uint64(dv.Len())
	}
	require.Equal(t, uint64(23), live)

	before := views[0]
	want := without(append(seq(0, 20), seq(200, 5)...), 0, 3)
	require.Equal(t, want, before.IDs)
	var addrs []uint64
	for i, id := range before.IDs {
		if id == 5 || id == 200 {
			addrs = append(addrs, before.Addrs[i])
		}
	}
	m, err = ds.DeleteRows(ctx, m.Version(), table.RowsByFragment(addrs), "id in (5, 200)")
	require.NoError(t, err)
	nb := idNameBatch(mem, 300, 2)
	defer nb.Release()
	m2, err := ds.Append(ctx, []arrow.RecordBatch{nb}, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	require.Equal(t, m.Version()+1, m2.Version())
	require.Equal(t, map[string]string{"x.key": "1"}, m2.Proto.GetConfig(), "config is kept")
	require.Equal(t, map[string]string{"owner": "me"}, m2.Proto.GetTableMetadata(), "table metadata is kept")
	require.Equal(t, table.FlagDeletionFiles|table.FlagTableConfig, m2.Proto.GetWriterFeatureFlags())
	require.Equal(t, table.FlagDeletionFiles, m2.Proto.GetReaderFeatureFlags())
	require.Equal(t, "2.2", m2.DataFormatVersion())

	after := pylanceViews(t, dir, 0)[0]
	want = append(without(want, 5, 200), 300, 301)
	require.Equal(t, want, after.IDs)
	require.Equal(t, names(want), after.Names)
	require.Equal(t, m2.Version(), after.Version)
	require.Equal(t, seqU(1, m2.Version()), after.Versions)
}
