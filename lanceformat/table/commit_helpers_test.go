package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// linkStore is dirStore with atomic writes: Put writes a temporary file outside the
// dataset and renames it into place; PutIfAbsent hard-links it (EEXIST = already exists),
// which is atomic across goroutines and processes.
type linkStore struct {
	dirStore
	tmp string
}

func newLinkStore(t *testing.T) (linkStore, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	s := linkStore{dirStore: dirStore{Root: root}, tmp: filepath.Join(base, "tmp")}
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.MkdirAll(s.tmp, 0o755))
	return s, root
}

func (s linkStore) writeTemp(data []byte) (string, error) {
	f, err := os.CreateTemp(s.tmp, "put-*")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

func (s linkStore) Put(_ context.Context, p string, data []byte) error {
	full := filepath.Join(s.Root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	tmp, err := s.writeTemp(data)
	if err != nil {
		return err
	}
	return os.Rename(tmp, full)
}

func (s linkStore) PutIfAbsent(_ context.Context, p string, data []byte) error {
	full := filepath.Join(s.Root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	tmp, err := s.writeTemp(data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, full); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
		}
		return err
	}
	return nil
}

// newDataset returns an empty dataset in a fresh directory (the dataset root is the store
// root) and that directory.
func newDataset(t *testing.T) (*table.Dataset, string) {
	s, root := newLinkStore(t)
	return table.OpenDataset(s, ""), root
}

// runPy runs a python script with args and returns its stdout.
func runPy(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testutil.Python(t), append([]string{"-c", script}, args...)...)
	var stderr []byte
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "python failed: %s", stderr)
	return out
}

// pyView is what pylance reports about a dataset.
type pyView struct {
	Version  uint64     `json:"version"`
	Versions []uint64   `json:"versions"`
	Rows     int64      `json:"rows"`
	Fields   [][2]any   `json:"fields"` // [name, id] in pre-order
	IDs      []int64    `json:"ids"`    // sorted values of column "id"
	Names    []string   `json:"names"`  // column "name", in "id" order (if present)
	Storage  string     `json:"storage"`
	Extra    [][]string `json:"extra"` // other columns as strings, in "id" order
	Addrs    []uint64   `json:"addrs"` // row addresses, in "id" order
}

const pyViewScript = `
import json, sys, lance
def view(ds):
    t = ds.to_table(with_row_address=True)
    cols = t.column_names
    order = sorted(range(t.num_rows), key=lambda i: t.column("id")[i].as_py()) if "id" in cols else list(range(t.num_rows))
    def col(n):
        c = t.column(n).to_pylist()
        return [c[i] for i in order]
    ds.validate()
    return {
      "version": ds.version,
      "versions": [v["version"] for v in ds.versions()],
      "rows": ds.count_rows(),
      "fields": [[f.name(), f.id()] for f in ds.lance_schema.fields()],
      "ids": col("id") if "id" in cols else [],
      "names": col("name") if "name" in cols else [],
      "storage": ds.data_storage_version,
      "extra": [[str(x) for x in col(n)] for n in cols if n not in ("id", "name", "_rowaddr")],
      "addrs": col("_rowaddr"),
    }
def at(spec):
    uri, v = spec.rsplit("@", 1)
    ds = lance.dataset(uri)
    return ds.checkout_version(int(v)) if v != "0" else ds
print(json.dumps([view(at(s)) for s in sys.argv[1:]]))
`

// pylanceViews opens the dataset at dir with pylance at each version (0 = latest).
func pylanceViews(t *testing.T, dir string, versions ...uint64) []pyView {
	t.Helper()
	var specs []string
	for _, v := range versions {
		specs = append(specs, dir+"@"+strconv.FormatUint(v, 10))
	}
	return pylanceViewSpecs(t, specs...)
}

// pylanceViewSpecs opens datasets with pylance, each spec being "dir@version" (0 = latest),
// all in one python process.
func pylanceViewSpecs(t *testing.T, specs ...string) []pyView {
	t.Helper()
	var out []pyView
	require.NoError(t, json.Unmarshal(runPy(t, pyViewScript, specs...), &out))
	return out
}

// readOnlyStore refuses every write, protecting shared fixtures.
type readOnlyStore struct{ lanceio.ObjectStore }

func (readOnlyStore) Put(context.Context, string, []byte) error { return errors.New("read-only store") }
func (readOnlyStore) PutIfAbsent(context.Context, string, []byte) error {
	return errors.New("read-only store")
}
func (readOnlyStore) Delete(context.Context, string) error { return errors.New("read-only store") }

var idNameSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// idNameBatch is rows id = start .. start+n-1, name = "n<id>".
func idNameBatch(mem memory.Allocator, start, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, idNameSchema)
	defer b.Release()
	for i := start; i < start+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.StringBuilder).Append("n" + strconv.FormatInt(i, 10))
	}
	return b.NewRecordBatch()
}

// seq is [start, start+n).
func seq(start, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = start + int64(i)
	}
	return out
}

// names is "n<id>" for every id.
func names(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "n" + strconv.FormatInt(id, 10)
	}
	return out
}

func arrowBatch(sc *arrow.Schema, cols ...arrow.Array) arrow.RecordBatch {
	return array.NewRecordBatch(sc, cols, int64(cols[0].Len()))
}
