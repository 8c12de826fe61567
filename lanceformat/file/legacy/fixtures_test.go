package legacy_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
)

// dumpScript writes lance.dataset(src).to_table() to an Arrow IPC file dst for each
// (src, dst) argument pair, or the error text to dst+".err" when pylance itself cannot read
// the dataset.
const dumpScript = `
import sys, lance, pyarrow as pa
args = sys.argv[1:]
for src, dst in zip(args[0::2], args[1::2]):
    try:
        t = lance.dataset(src).to_table()
    except Exception as e:
        open(dst + ".err", "w").write(str(e))
        continue
    with pa.ipc.new_file(dst, t.schema) as w:
        w.write_table(t)
`

// dumpPylance runs dumpScript once for all dirs and returns the output paths.
func dumpPylance(t *testing.T, dirs []string) []string {
	tmp := t.TempDir()
	args := []string{"-c", dumpScript}
	outs := make([]string, len(dirs))
	for i, d := range dirs {
		outs[i] = filepath.Join(tmp, fmt.Sprintf("want%d.arrow", i))
		args = append(args, d, outs[i])
	}
	b, err := exec.Command(testutil.Python(t), args...).CombinedOutput()
	require.NoError(t, err, string(b))
	return outs
}

// TestSharedFixturesMatchPylance opens every dataset of the shared old-Lance fixtures
// through lancecat (legacy v1 and 2.0 data files alike) and compares all rows with what
// pylance 14 reads. Datasets pylance cannot read (files missing from the corpus) must fail
// here too.
func TestSharedFixturesMatchPylance(t *testing.T) {
	root := testutil.SharedFixtures(t)
	dirs := fixtureDatasets(t, root)
	require.GreaterOrEqual(t, len(dirs), 15)
	outs := dumpPylance(t, dirs)
	var legacyRows int64
	for i, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		out := outs[i]
		t.Run(rel, func(t *testing.T) {
			got, gotErr := scanFixture(t, dir)
			if msg, err := os.ReadFile(out + ".err"); err == nil {
				require.Error(t, gotErr, "pylance fails (%s) but flightd reads %v", msg, got)
				return
			}
			require.NoError(t, gotErr)
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			want := readIPC(t, mem, out)
			require.Equal(t, want, got)
			if strings.Contains(rel, "v0.8.14") || strings.Contains(rel, "v1_with") {
				legacyRows += int64(len(want))
			}
		})
	}
	require.Equal(t, int64(1900+3), legacyRows, "rows read from legacy v1 files")
}

// fixtureDatasets returns the dataset directories (those holding _versions).
func fixtureDatasets(t *testing.T, root string) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "_versions" {
			out = append(out, filepath.Dir(p))
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// scanFixture reads all rows of the dataset at dir through lancecat, rendered as JSON rows.
// The dataset is linked into a temporary catalog as "t.lance".
func scanFixture(t *testing.T, dir string) ([]string, error) {
	ctx := context.Background()
	cat := t.TempDir()
	require.NoError(t, os.Symlink(dir, filepath.Join(cat, "t.lance")))
	store, err := blobstore.Open(ctx, cat)
	require.NoError(t, err)
	tbl, err := lancecat.New(store).LoadTable(ctx, "t", catalog.VersionRef{})
	if err != nil {
		return nil, err
	}
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	cols := make([]int, tbl.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	req := catalog.ScanRequest{Columns: cols, Limit: -1}
	morsels, err := tbl.Morsels(ctx, req)
	if err != nil {
		return nil, err
	}
	var rows []string
	for _, m := range morsels {
		rr, err := tbl.Scan(ctx, req, m, mem)
		if err != nil {
			return nil, err
		}
		for {
			b, err := rr.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			rows = append(rows, jsonRows(t, b)...)
			b.Release()
		}
		require.NoError(t, rr.Close())
	}
	return rows, nil
}

// readIPC reads an Arrow IPC file into JSON rows.
func readIPC(t *testing.T, mem memory.Allocator, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	var rows []string
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		require.NoError(t, err)
		rows = append(rows, jsonRows(t, rec)...)
	}
	return rows
}

// jsonRows renders each row of b as one JSON object.
func jsonRows(t *testing.T, b arrow.RecordBatch) []string {
	t.Helper()
	var out []string
	for row := range int(b.NumRows()) {
		var sb strings.Builder
		for c := range int(b.NumCols()) {
			col := b.Column(c)
			sb.WriteString(b.ColumnName(c) + " " + col.DataType().String() + "=" + col.ValueStr(row) + ";")
		}
		out = append(out, sb.String())
	}
	return out
}
