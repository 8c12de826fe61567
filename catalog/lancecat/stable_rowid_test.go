package lancecat_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

// idRow is one live row as [_rowid, k, v]; JSON numbers decode as float64 in both readers.
type idRow = []any

func stableRowIDsPy(t *testing.T, mode, uri string) []byte {
	t.Helper()
	out, err := exec.Command(testutil.Python(t), "testdata/stable_rowids.py", mode, uri).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("stable_rowids.py %s: %v: %s", mode, err, ee.Stderr)
	}
	require.NoError(t, err)
	return out
}

// pylanceRowsByVersion is what pylance reads (with_row_id=True) at every version.
func pylanceRowsByVersion(t *testing.T, uri string) map[uint64][]idRow {
	var raw map[string][]idRow
	require.NoError(t, json.Unmarshal(stableRowIDsPy(t, "read", uri), &raw))
	out := map[uint64][]idRow{}
	for vs, rows := range raw {
		v, err := strconv.ParseUint(vs, 10, 64)
		require.NoError(t, err)
		out[v] = rows
	}
	return out
}

// rowsWithIDs scans version v of table name with _rowid and _rowaddr and returns the live
// rows as [_rowid, k, v] sorted by _rowid, and the row address of every k.
func rowsWithIDs(t *testing.T, c *lancecat.Catalog, name string, v uint64) ([]idRow, map[int64]uint64) {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Version: v})
	require.NoError(t, err)
	batches := scanWithRowColumns(ctx, t, mem, tbl)
	defer release(batches)
	var rows []idRow
	addrs := map[int64]uint64{}
	for _, b := range batches {
		require.Equal(t, catalog.RowIDColumn, b.Schema().Field(2).Name)
		require.Equal(t, catalog.RowAddrColumn, b.Schema().Field(3).Name)
		k, s := b.Column(0).(*array.Int64), b.Column(1).(*array.String)
		id, addr := b.Column(2).(*array.Uint64), b.Column(3).(*array.Uint64)
		for i := range k.Len() {
			rows = append(rows, idRow{float64(id.Value(i)), float64(k.Value(i)), strings.Clone(s.Value(i))})
			addrs[k.Value(i)] = addr.Value(i)
		}
	}
	slices.SortFunc(rows, func(a, b idRow) int { return int(a[0].(float64) - b[0].(float64)) })
	return rows, addrs
}

// scanWithRowColumns scans k, v, _rowid, _rowaddr of every morsel of tbl.
func scanWithRowColumns(ctx context.Context, t *testing.T, mem memory.Allocator, tbl catalog.Table) []arrow.RecordBatch {
	req := catalog.ScanRequest{Columns: []int{0, 1}, RowID: true, RowAddr: true, Limit: -1}
	morsels, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	var out []arrow.RecordBatch
	for _, m := range morsels {
		rr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		for {
			b, err := rr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			out = append(out, b)
		}
		require.NoError(t, rr.Close())
	}
	return out
}

func stableAddrs(addrs map[int64]uint64, ks ...int64) []uint64 {
	out := make([]uint64, len(ks))
	for i, k := range ks {
		out[i] = addrs[k]
	}
	return out
}

// kvBatchPrefix is rows k = ks[i], v = prefix + k.
func kvBatchPrefix(mem memory.Allocator, prefix string, ks ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, kvSchema)
	defer b.Release()
	for _, k := range ks {
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.StringBuilder).Append(prefix + strconv.FormatInt(k, 10))
	}
	return b.NewRecordBatch()
}

// zeroColumn fills a new int64 column with zeros.
func zeroColumn(mem memory.Allocator) table.ColumnFiller {
	return func(_ context.Context, _, n uint64) ([]arrow.RecordBatch, error) {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(make([]int64, n), nil)
		col := b.NewArray()
		defer col.Release()
		sc := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
		return []arrow.RecordBatch{array.NewRecordBatch(sc, []arrow.Array{col}, int64(n))}, nil
	}
}

// idsOf is the _rowid of every k in rows.
func idsOf(rows []idRow) map[int64]uint64 {
	out := map[int64]uint64{}
	for _, r := range rows {
		out[int64(r[1].(float64))] = uint64(r[0].(float64))
	}
	return out
}

// requireStableIDsAsPylance checks that flightd reads every version of name as pylance does,
// row ids included.
func requireStableIDsAsPylance(t *testing.T, c *lancecat.Catalog, name, uri string) map[uint64][]idRow {
	t.Helper()
	py := pylanceRowsByVersion(t, uri)
	for v, want := range py {
		got, _ := rowsWithIDs(t, c, name, v)
		require.Equal(t, want, got, "version %d", v)
	}
	return py
}

// TestStableRowIDWrites: on a dataset pylance created with enable_stable_row_ids=True,
// flightd appends (fresh ids from next_row_id), deletes (ids kept), updates (updated rows
// keep their ids, as Lance 14 does) and compacts (ids carried); pylance reads every version
// with the same _rowid as flightd, keeps writing after us, and flightd reads its versions.
func TestStableRowIDWrites(t *testing.T) {
	dir := t.TempDir()
	uri := filepath.Join(dir, "t.lance")
	stableRowIDsPy(t, "create", uri)
	c := openCatalog(t, dir)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	b := kvBatch(mem, 100, 101, 102, 103, 104)
	v, err := c.Append(ctx, "t", []arrow.RecordBatch{b})
	b.Release()
	require.NoError(t, err)
	rows, addrs := rowsWithIDs(t, c, "t", v)
	ids := idsOf(rows)
	for i, k := range []int64{100, 101, 102, 103, 104} {
		require.Equal(t, uint64(20+i), ids[k], "appended k=%d gets the next row id", k)
	}

	v, err = c.DeleteRows(ctx, "t", v, stableAddrs(addrs, 3, 101))
	require.NoError(t, err)
	rows, addrs = rowsWithIDs(t, c, "t", v)
	require.Len(t, rows, 23)
	require.Equal(t, ids[5], idsOf(rows)[5])

	u := kvBatchPrefix(mem, "u", 102, 7)
	v, err = c.UpdateRows(ctx, "t", v, stableAddrs(addrs, 102, 7), []arrow.RecordBatch{u})
	u.Release()
	require.NoError(t, err)
	rows, _ = rowsWithIDs(t, c, "t", v)
	after := idsOf(rows)
	require.Equal(t, ids[102], after[102], "an updated row keeps its id")
	require.Equal(t, ids[7], after[7], "an updated row keeps its id")
	require.Contains(t, rows, idRow{float64(ids[7]), float64(7), "u7"})

	v, st, err := c.Compact(ctx, "t", &lancecat.CompactOptions{TargetRows: 1000})
	require.NoError(t, err)
	require.Positive(t, st.FragmentsRemoved)
	compacted, _ := rowsWithIDs(t, c, "t", v)
	require.Equal(t, rows, compacted, "compaction keeps every row's id")

	ds, err := c.Dataset("t")
	require.NoError(t, err)
	m, err := ds.AddColumns(ctx, v, arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64}}, nil),
		zeroColumn(mem), &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	v = m.Version()
	added, _ := rowsWithIDs(t, c, "t", v)
	require.Equal(t, rows, added, "adding a column keeps every row's id")

	py := requireStableIDsAsPylance(t, c, "t", uri)
	require.Len(t, py, int(v))

	stableRowIDsPy(t, "write", uri)
	py = requireStableIDsAsPylance(t, c, "t", uri)
	last, _ := rowsWithIDs(t, c, "t", uint64(len(py)))
	lastIDs := idsOf(last)
	require.Equal(t, uint64(25), lastIDs[500], "pylance continues from our next_row_id")
	require.Contains(t, last, idRow{float64(ids[6]), float64(6), "p6"})
	require.Equal(t, ids[102], lastIDs[102])

	// flightd writes again on pylance's sequences (bitmaps after its update and compaction).
	_, addrs = rowsWithIDs(t, c, "t", uint64(len(py)))
	v, err = c.DeleteRows(ctx, "t", uint64(len(py)), stableAddrs(addrs, 8, 500))
	require.NoError(t, err)
	v, _, err = c.Compact(ctx, "t", &lancecat.CompactOptions{TargetRows: 1000})
	require.NoError(t, err)
	final, _ := rowsWithIDs(t, c, "t", v)
	require.Len(t, final, len(last)-2)
	finalIDs := idsOf(final)
	for k, id := range lastIDs {
		if k != 8 && k != 500 {
			require.Equal(t, id, finalIDs[k], "k=%d keeps its id", k)
		}
	}
	requireStableIDsAsPylance(t, c, "t", uri)
}

// TestCreateWithStableRowIDs: a dataset flightd creates with CreateOptions.StableRowIDs has
// stable row ids for pylance, and appends and compaction keep them.
func TestCreateWithStableRowIDs(t *testing.T) {
	dir := t.TempDir()
	c := openCatalog(t, dir)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := kvBatch(mem, rangeK(0, 10)...)
	defer b.Release()
	v, err := c.CreateTableWith(ctx, "s", kvSchema, []arrow.RecordBatch{b},
		&table.CreateOptions{StableRowIDs: true, Write: table.WriteOptions{MaxRowsPerFile: 4}})
	require.NoError(t, err)
	rows, addrs := rowsWithIDs(t, c, "s", v)
	require.Equal(t, uint64(1)<<32, addrs[4], "k=4 is the first row of the second fragment")
	require.Equal(t, uint64(4), idsOf(rows)[4], "but keeps row id 4")
	v, err = c.DeleteRows(ctx, "s", v, stableAddrs(addrs, 0, 5))
	require.NoError(t, err)
	v, err = c.Append(ctx, "s", []arrow.RecordBatch{b})
	require.NoError(t, err)
	_, _, err = c.Compact(ctx, "s", &lancecat.CompactOptions{TargetRows: 1000})
	require.NoError(t, err)
	py := requireStableIDsAsPylance(t, c, "s", filepath.Join(dir, "s.lance"))
	require.Len(t, py, int(v)+1)
	stableRowIDsPy(t, "write", filepath.Join(dir, "s.lance"))
	py = requireStableIDsAsPylance(t, c, "s", filepath.Join(dir, "s.lance"))
	last, _ := rowsWithIDs(t, c, "s", uint64(len(py)))
	require.Equal(t, uint64(20), idsOf(last)[500])

	// An overwrite keeps stable row ids and continues from next_row_id, as pylance does.
	small := kvBatch(mem, 7, 8)
	defer small.Release()
	v, err = c.CreateTableWith(ctx, "s", kvSchema, []arrow.RecordBatch{small}, &table.CreateOptions{Mode: table.CreateOrOverwrite})
	require.NoError(t, err)
	rows, _ = rowsWithIDs(t, c, "s", v)
	require.Equal(t, []idRow{{23.0, 7.0, "v7"}, {24.0, 8.0, "v8"}}, rows)
	requireStableIDsAsPylance(t, c, "s", filepath.Join(dir, "s.lance"))
}
