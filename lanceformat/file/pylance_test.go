package file_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/file"
)

// genCase is one dataset written by testdata/gen_files.py.
type genCase struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	DataFile string `json:"data_file"`
	Dir      string `json:"dir"`
	Expected string `json:"expected"`
	Rows     int    `json:"rows"`
}

var (
	genOnce  sync.Once
	genCases []genCase
	genErr   error
	genDir   string // removed by TestMain
)

// generated runs gen_files.py once per test binary and returns its cases.
func generated(t *testing.T) []genCase {
	t.Helper()
	py := testutil.Python(t)
	genOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lancefile-gen-")
		if err != nil {
			genErr = err
			return
		}
		genDir = dir
		var stderr bytes.Buffer
		cmd := exec.Command(py, "testdata/gen_files.py", dir)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			genErr = errors.Join(err, errors.New(stderr.String()))
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var c genCase
			if genErr = json.Unmarshal(sc.Bytes(), &c); genErr != nil {
				return
			}
			genCases = append(genCases, c)
		}
	})
	require.NoError(t, genErr)
	require.NotEmpty(t, genCases)
	return genCases
}

// readExpected loads an Arrow IPC file as one record per column (concatenated).
func readExpected(t *testing.T, path string, mem memory.Allocator) (*arrow.Schema, []arrow.Array) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer rd.Close()
	sc := rd.Schema()
	parts := make([][]arrow.Array, sc.NumFields())
	for i := 0; i < rd.NumRecords(); i++ {
		rec, err := rd.Record(i)
		require.NoError(t, err)
		for c := range parts {
			col := rec.Column(c)
			col.Retain() // the record is only valid until the next Record call
			parts[c] = append(parts[c], col)
		}
	}
	cols := make([]arrow.Array, len(parts))
	for c, p := range parts {
		cols[c], err = array.Concatenate(p, mem)
		releaseAll(p)
		require.NoError(t, err)
	}
	return sc, cols
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func TestReadPylanceFiles(t *testing.T) {
	t.Parallel()
	for _, c := range generated(t) {
		t.Run(c.Name+"/"+c.Version, func(t *testing.T) {
			t.Parallel()
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			r, err := file.Open(ctx, dirStore{c.Dir}, c.DataFile)
			require.NoError(t, err)
			require.Equal(t, c.Version, r.Version().String())
			require.Equal(t, uint64(c.Rows), r.NumRows())
			sc, want := readExpected(t, c.Expected, mem)
			defer releaseAll(want)
			require.Len(t, r.Schema().Fields, sc.NumFields())
			for i, f := range r.Schema().Fields {
				t.Run(f.Name, func(t *testing.T) {
					require.Equal(t, sc.Field(i).Name, f.Name)
					require.True(t, arrow.TypeEqual(sc.Field(i).Type, f.Type), "type %s vs %s", f.Type, sc.Field(i).Type)
					checkField(t, ctx, r, f.ID, want[i], mem)
				})
			}
		})
	}
}

// checkField compares full reads, sub-ranges and takes of one field with the expected array.
func checkField(t *testing.T, ctx context.Context, r *file.Reader, id int32, want arrow.Array, mem memory.Allocator) {
	n := uint64(want.Len())
	got, err := r.ReadRange(ctx, []int32{id}, 0, n, mem)
	require.NoError(t, err)
	defer releaseAll(got)
	requireEqualArrays(t, want, got[0])

	for _, rg := range [][2]uint64{{0, 1}, {1, 2}, {n / 3, n/3 + 1000}, {n - 7, n}, {1021, 4099}, {n / 4, n - n/4}, {n, n}} {
		if rg[1] > n || rg[0] > rg[1] {
			continue
		}
		got, err := r.ReadRange(ctx, []int32{id}, rg[0], rg[1], mem)
		require.NoError(t, err, "range %v", rg)
		exp := array.NewSlice(want, int64(rg[0]), int64(rg[1]))
		requireEqualArrays(t, exp, got[0])
		exp.Release()
		releaseAll(got)
	}

	rows := []uint64{0, 3, 4, 5, 1023, 1024, 1025, 2047, 2048, 4095, 4096, n/2 + 1, n/2 + 2, n - 1}
	rows = slices.DeleteFunc(rows, func(r uint64) bool { return r >= n })
	slices.Sort(rows)
	rows = slices.Compact(rows)
	got2, err := r.Take(ctx, []int32{id}, rows, mem)
	require.NoError(t, err)
	defer releaseAll(got2)
	var parts []arrow.Array
	for _, row := range rows {
		parts = append(parts, array.NewSlice(want, int64(row), int64(row+1)))
	}
	exp, err := array.Concatenate(parts, mem)
	releaseAll(parts)
	require.NoError(t, err)
	defer exp.Release()
	requireEqualArrays(t, exp, got2[0])
	checkCursor(t, ctx, r, id, want, mem)
}

// checkCursor reads the field through one Cursor in consecutive ranges of varied sizes
// (crossing chunks and pages, with empty ranges, a Take in between, and a restart from
// row 0 on a fresh cursor) and compares every range with the expected slice.
func checkCursor(t *testing.T, ctx context.Context, r *file.Reader, id int32, want arrow.Array, mem memory.Allocator) {
	n := uint64(want.Len())
	c := r.NewCursor()
	require.Equal(t, r.NumRows(), c.NumRows())
	steps := []uint64{1, 999, 0, 4096, 3001, 16 << 10, 70000}
	for start, i := uint64(0), 0; start < n; i++ {
		end := min(n, start+steps[i%len(steps)])
		got, err := c.ReadRange(ctx, []int32{id}, start, end, mem)
		require.NoError(t, err, "cursor range [%d,%d)", start, end)
		exp := array.NewSlice(want, int64(start), int64(end))
		requireEqualArrays(t, exp, got[0])
		exp.Release()
		releaseAll(got)
		if i == 3 {
			tk, err := c.Take(ctx, []int32{id}, []uint64{n - 1}, mem)
			require.NoError(t, err)
			last := array.NewSlice(want, int64(n-1), int64(n))
			requireEqualArrays(t, last, tk[0])
			last.Release()
			releaseAll(tk)
		}
		start = end
	}
	_, err := c.ReadRange(ctx, []int32{id}, 0, n+1, mem)
	require.Error(t, err)
}

func requireEqualArrays(t *testing.T, want, got arrow.Array) {
	t.Helper()
	require.Equal(t, want.Len(), got.Len())
	if !arraysEqual(want, got) {
		for i := 0; i < want.Len(); i++ {
			w, g := array.NewSlice(want, int64(i), int64(i+1)), array.NewSlice(got, int64(i), int64(i+1))
			eq := arraysEqual(w, g)
			ws, gs := w.String(), g.String()
			w.Release()
			g.Release()
			require.True(t, eq, "first difference at row %d: want %s, got %s", i, ws, gs)
		}
		require.Fail(t, "arrays differ", "want %s\ngot %s", want, got)
	}
}

// arraysEqual is array.Equal with NaN equal to NaN, comparing dictionary arrays by their
// values (pylance and this reader may build different dictionaries for the same values).
func arraysEqual(a, b arrow.Array) bool {
	if da, ok := a.(*array.Dictionary); ok {
		db, ok := b.(*array.Dictionary)
		if !ok || !arrow.TypeEqual(a.DataType(), b.DataType()) {
			return false
		}
		x, y := densify(da), densify(db)
		defer x.Release()
		defer y.Release()
		return arraysEqual(x, y)
	}
	return array.Equal(a, b) || array.ApproxEqual(a, b, array.WithNaNsEqual(true), array.WithAbsTolerance(0))
}

// densify materializes a dictionary array as its values.
func densify(d *array.Dictionary) arrow.Array {
	out, err := compute.TakeArray(context.Background(), d.Dictionary(), d.Indices())
	if err != nil {
		panic(err) // test helper: both arrays come from trusted builders
	}
	return out
}
