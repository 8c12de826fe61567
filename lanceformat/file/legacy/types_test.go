package legacy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
)

// writeScript writes two legacy (v1) datasets with pylance, 2 rows per batch: plain.lance
// and deleted.lance (the same rows, then rows 1, 4 and 6 deleted).
const writeScript = `
import sys, lance, pyarrow as pa
root = sys.argv[1]
t = pa.table({
    "i": pa.array([1, None, 3, 4, 5, 6, 7], pa.int32()),
    "u8": pa.array([1, 2, 3, 4, 5, 6, 255], pa.uint8()),
    "f": pa.array([0.5, 1.5, -2.0, 3.25, 4.0, 5.5, 6.0], pa.float64()),
    "b": [True, False, None, True, True, False, True],
    "s": ["a", "", None, "dd", "e", "ff", "g"],
    "bin": pa.array([b"x", b"", b"yy", None, b"z", b"w", b"v"], pa.large_binary()),
    "l": [[1, 2], [], None, [3], [4, 5, 6], [7], [8, 9]],
    "st": [{"x": 1, "y": "p"}, {"x": 2, "y": "q"}, None, {"x": 4, "y": ""},
           {"x": 5, "y": "r"}, {"x": 6, "y": "s"}, {"x": 7, "y": "t"}],
    "d": pa.array(["u", "v", "u", "w", "v", "w", "u"]).dictionary_encode(),
    "fsl": pa.array([[float(i), float(-i)] for i in range(7)], pa.list_(pa.float32(), 2)),
    "ls": pa.array([["a"], ["b", "c"], [], None, ["d"], ["e", "f", "g"], ["h"]],
                   pa.large_list(pa.string())),
    "ts": pa.array([0, 1, 2, 3, 4, 5, 6], pa.timestamp("us")),
})
for name in ["plain", "deleted"]:
    lance.write_dataset(t, f"{root}/{name}.lance", data_storage_version="legacy", max_rows_per_group=2)
lance.dataset(f"{root}/deleted.lance").delete("u8 = 2 or u8 = 5 or u8 = 255")
`

// TestPylanceLegacyTypes reads v1 files pylance 14 writes with every encoding (plain,
// bit-packed booleans, var-binary, lists, large lists, structs, fixed-size lists,
// dictionaries) over several batches, whole, in ranges that cross batches, and through
// deletion vectors (Take), and compares with pylance's own reads.
func TestPylanceLegacyTypes(t *testing.T) {
	root := t.TempDir()
	b, err := exec.Command(testutil.Python(t), "-c", writeScript, root).CombinedOutput()
	require.NoError(t, err, string(b))
	dirs := []string{filepath.Join(root, "plain.lance"), filepath.Join(root, "deleted.lance")}
	outs := dumpPylance(t, dirs)
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	for i, dir := range dirs {
		want := readIPC(t, mem, outs[i])
		got, err := scanFixture(t, dir)
		require.NoError(t, err)
		require.Equal(t, want, got, dir)
	}
	require.Len(t, readIPC(t, mem, outs[1]), 4)

	all := readIPC(t, mem, outs[0])
	require.Len(t, all, 7)
	cases := []struct{ start, end int64 }{{0, 7}, {1, 4}, {2, 4}, {3, 3}, {5, 7}, {6, 7}, {0, 1}}
	for _, c := range cases {
		got := scanMorsel(t, dirs[0], catalog.Morsel{Fragment: 0, Start: c.start, End: c.end})
		if c.start == c.end {
			require.Empty(t, got)
			continue
		}
		require.Equal(t, all[c.start:c.end], got, "rows [%d, %d)", c.start, c.end)
	}
}

// scanMorsel scans one morsel of the dataset at dir through lancecat.
func scanMorsel(t *testing.T, dir string, m catalog.Morsel) []string {
	ctx := context.Background()
	cat := t.TempDir()
	require.NoError(t, os.Symlink(dir, filepath.Join(cat, "t.lance")))
	store, err := blobstore.Open(ctx, cat)
	require.NoError(t, err)
	tbl, err := lancecat.New(store).LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	cols := make([]int, tbl.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	rr, err := tbl.Scan(ctx, catalog.ScanRequest{Columns: cols, Limit: -1}, m, mem)
	require.NoError(t, err)
	defer func() { require.NoError(t, rr.Close()) }()
	var rows []string
	for {
		b, err := rr.Next(ctx)
		require.NoError(t, err)
		if b == nil {
			return rows
		}
		rows = append(rows, jsonRows(t, b)...)
		b.Release()
	}
}
