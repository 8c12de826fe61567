package lancecat_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// kvBatch is rows k = ks[i], v = "v<k>".
func kvBatch(mem memory.Allocator, ks ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, kvSchema)
	defer b.Release()
	for _, k := range ks {
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.StringBuilder).Append("v" + strconv.FormatInt(k, 10))
	}
	return b.NewRecordBatch()
}

func rangeK(start, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = start + int64(i)
	}
	return out
}

// scanKeys scans the latest version of table name and returns its k values (sorted) after
// checking that every v is "v<k>".
func scanKeys(t *testing.T, c *lancecat.Catalog, name string, at catalog.VersionRef) []int64 {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := c.LoadTable(ctx, name, at)
	require.NoError(t, err)
	_, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
	defer release(batches)
	var ks []int64
	for _, b := range batches {
		k, v := b.Column(0).(*array.Int64), b.Column(1).(*array.String)
		for i := range k.Len() {
			require.Equal(t, "v"+strconv.FormatInt(k.Value(i), 10), v.Value(i))
			ks = append(ks, k.Value(i))
		}
	}
	slices.Sort(ks)
	return ks
}

// TestWriteThenScanAndPylanceWrites: tables we write scan back through the catalog, and
// what pylance writes to them afterwards (append, delete, compaction) scans back too.
func TestWriteThenScanAndPylanceWrites(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	c := openCatalog(t, dir)
	b1, b2 := kvBatch(mem, rangeK(0, 20)...), kvBatch(mem, rangeK(20, 5)...)
	defer b1.Release()
	defer b2.Release()
	v, err := c.CreateTableWith(ctx, "kv", kvSchema, []arrow.RecordBatch{b1}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)
	require.Equal(t, uint64(1), v)
	_, err = c.CreateTableWith(ctx, "kv", kvSchema, []arrow.RecordBatch{b1}, nil)
	require.ErrorIs(t, err, table.ErrDatasetExists)
	v, err = c.Append(ctx, "kv", []arrow.RecordBatch{b2})
	require.NoError(t, err)
	require.Equal(t, uint64(2), v)
	// fragment 1 holds k 10..19: delete k=10 and k=12; fragment 2 (k 20..24): k=24
	v, err = c.DeleteRows(ctx, "kv", 2, []uint64{1<<32 | 0, 1<<32 | 2, 2<<32 | 4})
	require.NoError(t, err)
	require.Equal(t, uint64(3), v)
	_, err = c.Append(ctx, "missing", []arrow.RecordBatch{b2})
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)
	_, err = c.DeleteRows(ctx, "kv", 9, []uint64{0})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
	_, err = c.DeleteRows(ctx, "kv", 3, []uint64{7 << 32})
	require.ErrorIs(t, err, table.ErrInvalidWrite)

	want := slices.DeleteFunc(rangeK(0, 25), func(k int64) bool { return k == 10 || k == 12 || k == 24 })
	require.Equal(t, want, scanKeys(t, c, "kv", catalog.VersionRef{}))
	require.Equal(t, rangeK(0, 20), scanKeys(t, c, "kv", catalog.VersionRef{Version: 1}))

	py := testutil.Python(t)
	script := `import sys, lance, pyarrow as pa
uri = sys.argv[1]
sc = pa.schema([pa.field("k", pa.int64(), nullable=False), pa.field("v", pa.string())])
lance.write_dataset(pa.table({"k": [100, 101], "v": ["v100", "v101"]}, schema=sc), uri, mode="append")
ds = lance.dataset(uri)
ds.delete("k = 0")
ds.optimize.compact_files()
`
	out, err := exec.Command(py, "-c", script, dir+"/kv.lance").CombinedOutput()
	require.NoError(t, err, string(out))
	want = append(want[1:], 100, 101)
	require.Equal(t, want, scanKeys(t, c, "kv", catalog.VersionRef{}))
}

// appendChildEnv makes the test binary an appending child process (see TestAppendChild).
const appendChildEnv = "FLIGHTD_LANCECAT_APPEND_CHILD"

// TestAppendChild is not a test on its own: when appendChildEnv is "dir,first,count" it
// appends count single-row batches k = first, first+1, ... to table "race" in dir.
func TestAppendChild(t *testing.T) {
	spec := os.Getenv(appendChildEnv)
	if spec == "" {
		t.Skip("only runs as a child process of TestConcurrentAppendsAcrossProcesses")
	}
	parts := strings.Split(spec, ",")
	require.Len(t, parts, 3)
	first, err := strconv.ParseInt(parts[1], 10, 64)
	require.NoError(t, err)
	n, err := strconv.ParseInt(parts[2], 10, 64)
	require.NoError(t, err)
	require.NoError(t, appendEach(openCatalog(t, parts[0]), first, n))
}

func appendEach(c *lancecat.Catalog, first, n int64) error {
	for k := first; k < first+n; k++ {
		b := kvBatch(memory.DefaultAllocator, k)
		_, err := c.Append(context.Background(), "race", []arrow.RecordBatch{b})
		b.Release()
		if err != nil {
			return fmt.Errorf("append k=%d: %w", k, err)
		}
	}
	return nil
}

// TestConcurrentAppendsAcrossProcesses races goroutines and OS processes appending to one
// table on the file store: no commit is lost or duplicated and versions are gapless.
func TestConcurrentAppendsAcrossProcesses(t *testing.T) {
	if os.Getenv(appendChildEnv) != "" {
		t.Skip("child process")
	}
	const procs, goroutines, each = 3, 4, 5
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	c := openCatalog(t, dir)
	b := kvBatch(mem, -1)
	defer b.Release()
	_, err := c.CreateTableWith(ctx, "race", kvSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
	require.NoError(t, err)

	var g errgroup.Group
	for p := range procs {
		g.Go(func() error {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAppendChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", appendChildEnv, dir, 1000*(p+1), each))
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("child %d: %w: %s", p, err, out)
			}
			return nil
		})
	}
	for w := range goroutines {
		g.Go(func() error { return appendEach(c, int64(100*(w+1)), each) })
	}
	require.NoError(t, g.Wait())

	want := []int64{-1}
	for p := range procs {
		want = append(want, rangeK(int64(1000*(p+1)), each)...)
	}
	for w := range goroutines {
		want = append(want, rangeK(int64(100*(w+1)), each)...)
	}
	slices.Sort(want)
	require.Equal(t, want, scanKeys(t, c, "race", catalog.VersionRef{}))
	ds, err := c.Dataset("race")
	require.NoError(t, err)
	vs, err := ds.Versions(ctx)
	require.NoError(t, err)
	require.Len(t, vs, 1+(procs+goroutines)*each)
	for i, v := range vs {
		require.Equal(t, uint64(i+1), v.Version)
	}
}

// TestCompact rewrites small fragments and fragments with deletions into one; the rows do
// not change, pylance reads the result and keeps writing to it.
func TestCompact(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	c := openCatalog(t, dir)
	b1, b2 := kvBatch(mem, rangeK(0, 30)...), kvBatch(mem, 30, 31)
	defer b1.Release()
	defer b2.Release()
	_, err := c.CreateTableWith(ctx, "kv", kvSchema, []arrow.RecordBatch{b1}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)
	_, err = c.DeleteRows(ctx, "kv", 1, []uint64{0<<32 | 5, 2<<32 | 9})
	require.NoError(t, err)
	_, err = c.Append(ctx, "kv", []arrow.RecordBatch{b2})
	require.NoError(t, err) // v3: fragments 0 (deletions), 1, 2 (deletions), 3 (2 rows)
	want := slices.DeleteFunc(rangeK(0, 32), func(k int64) bool { return k == 5 || k == 29 })

	v, st, err := c.Compact(ctx, "kv", &lancecat.CompactOptions{TargetRows: 20, Allocator: mem})
	require.NoError(t, err)
	require.Equal(t, uint64(4), v)
	require.Equal(t, lancecat.CompactStats{FragmentsRemoved: 4, FragmentsAdded: 2}, st)
	require.Equal(t, want, scanKeys(t, c, "kv", catalog.VersionRef{}))
	tbl, err := c.LoadTable(ctx, "kv", catalog.VersionRef{})
	require.NoError(t, err)
	frags := tbl.(*lancecat.Table).Manifest().Fragments()
	require.Len(t, frags, 2)
	require.Equal(t, []uint64{4, 5}, []uint64{frags[0].GetId(), frags[1].GetId()})
	require.Nil(t, frags[0].GetDeletionFile())
	require.Equal(t, uint64(20), frags[0].GetPhysicalRows())

	v, st, err = c.Compact(ctx, "kv", &lancecat.CompactOptions{TargetRows: 10, Allocator: mem})
	require.NoError(t, err)
	require.Equal(t, uint64(4), v, "nothing to do")
	require.Equal(t, lancecat.CompactStats{}, st)

	py := testutil.Python(t)
	script := `import sys, lance
ds = lance.dataset(sys.argv[1])
ds.validate()
assert ds.count_rows() == 30, ds.count_rows()
ds.delete("k = 0")
print(lance.dataset(sys.argv[1]).version)
`
	out, err := exec.Command(py, "-c", script, dir+"/kv.lance").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "5", strings.TrimSpace(string(out)))
	require.Equal(t, want[1:], scanKeys(t, c, "kv", catalog.VersionRef{}))
}
