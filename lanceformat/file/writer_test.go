package file_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// osStore is a read-write lanceio.ObjectStore over a local directory, for writer tests.
type osStore struct{ root string }

func (s osStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(s.root, p))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("read %s [%d,+%d): %w", p, off, n, err)
	}
	return buf, nil
}

func (s osStore) Size(_ context.Context, p string) (int64, error) {
	st, err := os.Stat(filepath.Join(s.root, p))
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (s osStore) List(context.Context, string) ([]lanceio.ObjectInfo, error) {
	return nil, errors.New("osStore: List not implemented")
}

func (s osStore) Put(_ context.Context, p string, data []byte) error {
	return os.WriteFile(filepath.Join(s.root, p), data, 0o600)
}

func (s osStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if _, err := os.Stat(filepath.Join(s.root, p)); err == nil {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	return s.Put(ctx, p, data)
}

func (s osStore) Delete(_ context.Context, p string) error {
	err := os.Remove(filepath.Join(s.root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", p, lanceio.ErrNotFound)
	}
	return err
}

// writerCase is one generated file: the pylance checker's input.
type writerCase struct {
	Name     string `json:"name"`
	Lance    string `json:"lance"`
	Expected string `json:"expected"`
	types    []string
	version  file.Version
}

var writerVersions = []file.Version{file.V2_0, file.V2_1, file.V2_2}

// writeRandomFile generates a random schema and batches from seed, writes them with the
// writer, checks our reader reads them back, and writes the expected rows as Arrow IPC.
func writeRandomFile(t *testing.T, dir string, seed uint64, v file.Version, mem memory.Allocator) writerCase {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, uint64(v)))
	nf := 1 + rng.IntN(4)
	gens := make([]*genField, nf)
	afs := make([]arrow.Field, nf)
	for i := range gens {
		gens[i] = randField(rng, fmt.Sprintf("f%d", i), 0, v)
		afs[i] = arrow.Field{Name: gens[i].name, Type: gens[i].typ, Nullable: gens[i].nullable()}
	}
	asc := arrow.NewSchema(afs, nil)
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	name := fmt.Sprintf("seed%d_v%s", seed, v)
	var opts []file.WriterOption
	opts = append(opts, file.WithAllocator(mem))
	if rng.IntN(2) == 0 {
		opts = append(opts, file.WithPageBytes(int64(1+rng.IntN(64))<<10))
	}
	store := osStore{dir}
	w, err := file.NewWriter(ctx, store, name+".lance", sc, v, opts...)
	require.NoError(t, err)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for range 1 + rng.IntN(3) {
		b := genBatch(rng, mem, asc, gens, rng.IntN(1500)+1)
		if rng.IntN(3) == 0 && b.NumRows() > 2 {
			// A slice exercises arrays with non-zero offsets.
			lo := rng.Int64N(b.NumRows() / 2)
			s := b.NewSlice(lo, lo+1+rng.Int64N(b.NumRows()-lo-1))
			b.Release()
			b = s
		}
		batches = append(batches, b)
		require.NoError(t, w.Write(ctx, b))
	}
	info, err := w.Close(ctx)
	require.NoError(t, err)
	st, err := os.Stat(filepath.Join(dir, name+".lance"))
	require.NoError(t, err)
	require.Equal(t, uint64(st.Size()), info.Size)

	checkOwnReader(t, store, name+".lance", v, batches, sc, info, mem)
	return writeExpected(t, dir, name, asc, batches, gens, v, mem)
}

// writeMatrixFile writes one file holding every test type (each leaf type, list<int32>,
// a struct with a list member, list<struct>) with the given null pattern at every level.
func writeMatrixFile(t *testing.T, dir string, v file.Version, nulls int, mem memory.Allocator) writerCase {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(uint64(nulls), uint64(v)))
	var gens []*genField
	for i, lt := range leafTypes {
		gens = append(gens, &genField{name: fmt.Sprintf("t%02d", i), typ: lt, nulls: nulls, strMode: i % 4, smallInt: i%2 == 0})
	}
	gens = append(gens, &genField{name: "utf8_vocab", typ: arrow.BinaryTypes.String, nulls: nulls, strMode: 0},
		&genField{name: "utf8_long", typ: arrow.BinaryTypes.LargeString, nulls: nulls, strMode: 2},
		&genField{name: "utf8_long_fsst", typ: arrow.BinaryTypes.String, nulls: nulls, strMode: 4},
		&genField{name: "int64_small", typ: arrow.PrimitiveTypes.Int64, nulls: nulls, smallInt: true},
		&genField{name: "int16_runs", typ: arrow.PrimitiveTypes.Int16, nulls: nulls, runs: true},
		&genField{name: "float64_runs", typ: arrow.PrimitiveTypes.Float64, nulls: nulls, runs: true})
	item := &genField{name: "item", typ: arrow.PrimitiveTypes.Int32, nulls: nulls}
	gens = append(gens, &genField{name: "list", typ: arrow.ListOf(item.typ), nulls: nulls, children: []*genField{item}},
		&genField{name: "large_list", typ: arrow.LargeListOf(item.typ), nulls: nulls, children: []*genField{item}})
	st := &genField{name: "struct", nulls: nulls, children: []*genField{
		{name: "a", typ: arrow.PrimitiveTypes.Int64, nulls: nulls},
		{name: "b", typ: arrow.BinaryTypes.String, nulls: nulls, strMode: 1},
		{name: "c", typ: arrow.ListOf(arrow.PrimitiveTypes.Int32), nulls: nulls,
			children: []*genField{{name: "item", typ: arrow.PrimitiveTypes.Int32, nulls: nulls}}}}}
	st.typ = structOf(st.children)
	ls := &genField{name: "item", nulls: nulls, children: []*genField{
		{name: "x", typ: arrow.PrimitiveTypes.Int32, nulls: nulls},
		{name: "y", typ: arrow.BinaryTypes.String, nulls: nulls}}}
	ls.typ = structOf(ls.children)
	gens = append(gens, st, &genField{name: "list_struct", typ: arrow.ListOfField(
		arrow.Field{Name: "item", Type: ls.typ, Nullable: true}), nulls: nulls, children: []*genField{ls}})
	afs := make([]arrow.Field, len(gens))
	for i, g := range gens {
		if v == file.V2_0 {
			noStructNulls(g)
		}
		afs[i] = arrow.Field{Name: g.name, Type: g.typ, Nullable: true}
	}
	asc := arrow.NewSchema(afs, nil)
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	name := fmt.Sprintf("matrix_v%s_nulls%d", v, nulls)
	store := osStore{dir}
	w, err := file.NewWriter(ctx, store, name+".lance", sc, v, file.WithAllocator(mem))
	require.NoError(t, err)
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for _, n := range []int{600, 900} {
		b := genBatch(rng, mem, asc, gens, n)
		batches = append(batches, b)
		require.NoError(t, w.Write(ctx, b))
	}
	info, err := w.Close(ctx)
	require.NoError(t, err)
	checkOwnReader(t, store, name+".lance", v, batches, sc, info, mem)
	return writeExpected(t, dir, name, asc, batches, gens, v, mem)
}

// writeExpected writes the batches as the Arrow IPC file the pylance checker compares with.
func writeExpected(t *testing.T, dir, name string, asc *arrow.Schema, batches []arrow.RecordBatch,
	gens []*genField, v file.Version, mem memory.Allocator) writerCase {
	exp := filepath.Join(dir, name+".arrow")
	f, err := os.Create(exp)
	require.NoError(t, err)
	iw, err := ipc.NewFileWriter(f, ipc.WithSchema(asc), ipc.WithAllocator(mem))
	require.NoError(t, err)
	for _, b := range batches {
		require.NoError(t, iw.Write(b))
	}
	require.NoError(t, iw.Close())
	require.NoError(t, f.Close())
	c := writerCase{Name: name, Lance: filepath.Join(dir, name+".lance"), Expected: exp, version: v}
	for _, g := range gens {
		c.types = append(c.types, g.typ.String())
	}
	return c
}

// checkOwnReader reads the file back with file.Reader and compares every column.
func checkOwnReader(t *testing.T, store lanceio.ObjectStore, path string, v file.Version,
	batches []arrow.RecordBatch, sc *schema.Schema, info file.FileInfo, mem memory.Allocator) {
	ctx := context.Background()
	r, err := file.Open(ctx, store, path)
	require.NoError(t, err)
	require.Equal(t, v, r.Version())
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	require.Equal(t, uint64(rows), r.NumRows())
	require.Equal(t, uint64(rows), info.NumRows)
	ids := make([]int32, len(sc.Fields))
	for i, f := range sc.Fields {
		ids[i] = f.ID
	}
	got, err := r.ReadRange(ctx, ids, 0, uint64(rows), mem)
	require.NoError(t, err)
	defer releaseAll(got)
	for i := range sc.Fields {
		parts := make([]arrow.Array, len(batches))
		for j, b := range batches {
			parts[j] = b.Column(i)
		}
		want, err := array.Concatenate(parts, mem)
		require.NoError(t, err)
		if !array.Equal(want, got[i]) {
			// Slots under null parents may legitimately differ; compare the JSON renderings,
			// which show such slots as null.
			wj, err := want.MarshalJSON()
			require.NoError(t, err)
			gj, err := got[i].MarshalJSON()
			require.NoError(t, err)
			require.JSONEq(t, string(wj), string(gj), "field %q (%s)", sc.Fields[i].Name, sc.Fields[i].Type)
		}
		want.Release()
	}
}

// writerPython returns the project venv's python, or skips the test.
func writerPython(t *testing.T) string {
	t.Helper()
	py, err := filepath.Abs("../../.venv/bin/python")
	require.NoError(t, err)
	if _, err := os.Stat(py); err != nil {
		t.Skipf("python venv not found at %s (run `make test` to build it): %v", py, err)
	}
	return py
}

// TestWriterRoundTrip writes files of random schemas and data (a fixed list of seeds, every
// version) and checks that both our reader and pylance's LanceFileReader read them back
// equal to the input.
func TestWriterRoundTrip(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	if d := os.Getenv("LANCE_WRITER_KEEP"); d != "" {
		dir = d
	}
	var cases []writerCase
	seeds := uint64(17) // 51 random files; LANCE_WRITER_SEEDS=n runs a longer sweep
	if n, err := strconv.ParseUint(os.Getenv("LANCE_WRITER_SEEDS"), 10, 32); err == nil {
		seeds = n
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, v := range writerVersions {
			t.Run(fmt.Sprintf("seed%d/%s", seed, v), func(t *testing.T) {
				cases = append(cases, writeRandomFile(t, dir, seed, v, mem))
			})
		}
	}
	for _, v := range writerVersions {
		for _, nulls := range []int{nullsNone, nullsSome, nullsAll} {
			t.Run(fmt.Sprintf("matrix/%s/nulls%d", v, nulls), func(t *testing.T) {
				cases = append(cases, writeMatrixFile(t, dir, v, nulls, mem))
			})
		}
	}
	for _, v := range []file.Version{file.V2_1, file.V2_2} { // the chunk limits are 2.1+ concerns
		t.Run(fmt.Sprintf("sparse/%s", v), func(t *testing.T) {
			cases = append(cases, writeSparseFile(t, dir, v, mem))
		})
	}
	for _, v := range writerVersions {
		t.Run(fmt.Sprintf("empty/%s", v), func(t *testing.T) {
			sc, err := schema.FromArrow(nestedSchema, 0)
			require.NoError(t, err)
			name := "empty_" + v.String()
			w, err := file.NewWriter(context.Background(), osStore{dir}, name+".lance", sc, v)
			require.NoError(t, err)
			_, err = w.Close(context.Background())
			require.NoError(t, err)
			cases = append(cases, writeExpected(t, dir, name, nestedSchema, nil, nil, v, mem))
		})
	}
	if t.Failed() {
		return
	}
	results := runPylanceChecker(t, dir, cases)
	for _, c := range cases {
		res, ok := results[c.Name]
		require.True(t, ok, "no pylance result for %s", c.Name)
		if !res.OK {
			t.Errorf("pylance rejected %s (%v): %s", c.Name, c.types, res.Error)
		}
	}
}

// checkResult is one line of check_file.py's output.
type checkResult struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// runPylanceChecker runs testdata/check_file.py on the cases and returns its verdicts by
// case name.
func runPylanceChecker(t *testing.T, dir string, cases []writerCase) map[string]checkResult {
	py := writerPython(t)
	list := filepath.Join(dir, "cases.json")
	b, err := json.Marshal(cases)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(list, b, 0o600))
	var stderr bytes.Buffer
	cmd := exec.Command(py, "testdata/check_file.py", list)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "check_file.py: %s", stderr.String())
	results := map[string]checkResult{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var res checkResult
		require.NoError(t, dec.Decode(&res))
		results[res.Name] = res
	}
	return results
}

// FuzzWriterRoundTrip writes a random file for each (seed, version) and checks our reader
// reads it back equal (pylance is checked by TestWriterRoundTrip on fixed seeds).
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add(uint64(1001), uint8(0))
	f.Add(uint64(1002), uint8(1))
	f.Add(uint64(1003), uint8(2))
	f.Fuzz(func(t *testing.T, seed uint64, v uint8) {
		mem := memtest.NewChecked(t)
		defer mem.AssertSize(t, 0)
		writeRandomFile(t, t.TempDir(), seed, writerVersions[int(v)%len(writerVersions)], mem)
	})
}

// writeSparseFile writes list columns whose rows are almost all empty or null, so a page has
// far more rep/def levels than values (more than one mini-block chunk can hold).
func writeSparseFile(t *testing.T, dir string, v file.Version, mem memory.Allocator) writerCase {
	ctx := context.Background()
	asc := arrow.NewSchema([]arrow.Field{
		{Name: "ints", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "strs", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, asc)
	defer rb.Release()
	ib, sb := rb.Field(0).(*array.ListBuilder), rb.Field(1).(*array.ListBuilder)
	for i := range 70000 {
		// ints: one value at the very end, so the last chunk would need 70000 levels
		// (full-zip); strs: a value every 20000 rows (mini-block with long chunks).
		switch {
		case i == 69999:
			ib.Append(true)
			ib.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(i), 7}, nil)
		case i%3 == 0:
			ib.AppendNull()
		default:
			ib.Append(true) // empty
		}
		switch {
		case i%20000 == 19999:
			sb.Append(true)
			sb.ValueBuilder().(*array.StringBuilder).Append(strconv.Itoa(i))
		case i%3 == 0:
			sb.AppendNull()
		default:
			sb.Append(true)
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	sc, err := schema.FromArrow(asc, 0)
	require.NoError(t, err)
	name := "sparse_" + v.String()
	store := osStore{dir}
	w, err := file.NewWriter(ctx, store, name+".lance", sc, v, file.WithAllocator(mem))
	require.NoError(t, err)
	require.NoError(t, w.Write(ctx, rec))
	info, err := w.Close(ctx)
	require.NoError(t, err)
	batches := []arrow.RecordBatch{rec}
	checkOwnReader(t, store, name+".lance", v, batches, sc, info, mem)
	return writeExpected(t, dir, name, asc, batches, nil, v, mem)
}
