package lancecat

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

// stableTable writes a table with stable row ids with pylance (one fragment of 6 rows whose
// ids are not its addresses: the dataset's first fragment was deleted) and loads it.
func stableTable(t *testing.T) *Table {
	t.Helper()
	dir := t.TempDir()
	script := `
import sys, lance, pyarrow as pa
uri = sys.argv[1] + "/s.lance"
lance.write_dataset(pa.table({"x": pa.array(range(4), pa.int64())}), uri, enable_stable_row_ids=True)
ds = lance.write_dataset(pa.table({"x": pa.array(range(10, 16), pa.int64())}), uri, mode="append")
ds.delete("x < 4")
`
	out, err := exec.Command(testutil.Python(t), "-c", script, dir).CombinedOutput()
	require.NoError(t, err, string(out))
	store, err := blobstore.Open(context.Background(), filepath.ToSlash(dir))
	require.NoError(t, err)
	ct, err := New(store).LoadTable(context.Background(), "s", catalog.VersionRef{})
	require.NoError(t, err)
	tbl := ct.(*Table)
	require.Len(t, tbl.m.Fragments(), 1)
	require.NotEmpty(t, tbl.m.Fragments()[0].GetInlineRowIds())
	return tbl
}

// setRowIDs replaces the row id sequence of fragment 0: an external file (path, offset,
// size), or none when path is "".
func setRowIDs(tbl *Table, path string, offset, size uint64) {
	msg := tbl.m.Fragments()[0].ProtoReflect()
	fd := msg.Descriptor().Fields().ByName("external_row_ids")
	if path == "" {
		msg.Clear(fd)
		msg.Clear(msg.Descriptor().Fields().ByName("inline_row_ids"))
		return
	}
	ext := msg.NewField(fd).Message()
	set := func(name string, v protoreflect.Value) {
		ext.Set(ext.Descriptor().Fields().ByName(protoreflect.Name(name)), v)
	}
	set("path", protoreflect.ValueOfString(path))
	set("offset", protoreflect.ValueOfUint64(offset))
	set("size", protoreflect.ValueOfUint64(size))
	msg.Set(fd, protoreflect.ValueOfMessage(ext)) // clears inline_row_ids (same oneof)
}

// scanRowIDs reads the _rowid column of fragment 0 through Scan.
func scanRowIDs(t *testing.T, tbl *Table) (_ []uint64, err error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	req := catalog.ScanRequest{Limit: -1, RowID: true}
	rd, err := tbl.Scan(ctx, req, catalog.Morsel{Fragment: tbl.keys[0], Start: 0, End: 6}, mem)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := rd.Close(); err == nil {
			err = cerr
		}
	}()
	var out []uint64
	for {
		rec, err := rd.Next(ctx)
		if err != nil || rec == nil {
			return out, err
		}
		out = append(out, rec.Column(0).(*array.Uint64).Uint64Values()...)
		rec.Release()
	}
}

// TestStableRowIDsExternal: a row id sequence in an external file (a byte range of a file
// relative to the table root) reads like the same sequence inline; a bad range or a
// missing sequence is an error.
func TestStableRowIDsExternal(t *testing.T) {
	ctx := context.Background()
	tbl := stableTable(t)
	inline := tbl.m.Fragments()[0].GetInlineRowIds()
	want, err := table.DecodeRowIDs(inline, 6)
	require.NoError(t, err)
	require.Equal(t, []uint64{4, 5, 6, 7, 8, 9}, want, "the second write's ids follow the first's")
	got, err := scanRowIDs(t, tbl)
	require.NoError(t, err)
	require.Equal(t, want, got)

	data := append(append([]byte("junk!"), inline...), "tail"...)
	require.NoError(t, tbl.ds.Store().Put(ctx, tbl.ds.Path("_rowids/f0.bin"), data))
	tests := []struct {
		name         string
		path         string
		offset, size uint64
		ok           bool
	}{
		{"external", "_rowids/f0.bin", 5, uint64(len(inline)), true},
		{"bad range", "_rowids/f0.bin", 0, uint64(len(inline)), false},
		{"missing file", "_rowids/none.bin", 5, uint64(len(inline)), false},
		{"no sequence", "", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setRowIDs(tbl, tc.path, tc.offset, tc.size)
			got, err := scanRowIDs(t, tbl)
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}
