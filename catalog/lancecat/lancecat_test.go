package lancecat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
)

type tableExpect struct {
	Latest   uint64           `json:"latest"`
	Expected map[string]int64 `json:"expected"` // version -> rows
}

type fixtureExpect struct {
	Rows     int64  `json:"rows"`
	Expected string `json:"expected"` // IPC file name in the output directory
}

type pyOutput struct {
	Tables   map[string]tableExpect   `json:"tables"`
	Fixtures map[string]fixtureExpect `json:"fixtures"`
}

var (
	pyOnce   sync.Once
	pyDir    string
	pyExpect pyOutput
	pyErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pyDir != "" {
		_ = os.RemoveAll(pyDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// tables writes the test tables once per test binary with pylance.
func tables(t *testing.T) (string, map[string]tableExpect) {
	t.Helper()
	pyOnce.Do(func() {
		py := testutil.Python(t)
		if pyDir, pyErr = os.MkdirTemp("", "lancecat-test-"); pyErr != nil {
			return
		}
		args := []string{"testdata/make_tables.py", pyDir}
		if fx := fixturesDir(t); fx != "" {
			args = append(args, fx)
		}
		out, err := exec.Command(py, args...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			pyErr = err
			return
		}
		pyErr = json.Unmarshal(out, &pyExpect)
	})
	require.NoError(t, pyErr)
	return pyDir, pyExpect.Tables
}

// fixturesDir is ../shared/fixtures/lance-test-data next to the repository, or "".
func fixturesDir(t *testing.T) string {
	dir := filepath.Join(testutil.RepoRoot(t), "..", "shared", "fixtures", "lance-test-data")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

func openCatalog(t *testing.T, dir string) *lancecat.Catalog {
	store, err := blobstore.Open(context.Background(), dir)
	require.NoError(t, err)
	return lancecat.New(store)
}

// readExpected reads an Arrow IPC file written by pylance into one array per column.
func readExpected(t *testing.T, mem memory.Allocator, path string) (*arrow.Schema, []arrow.Array) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	var batches []arrow.RecordBatch
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		require.NoError(t, err)
		rec.Retain()
		batches = append(batches, rec)
	}
	cols := concatColumns(t, mem, r.Schema(), batches)
	for _, b := range batches {
		b.Release()
	}
	return r.Schema(), cols
}

func concatColumns(t *testing.T, mem memory.Allocator, sc *arrow.Schema, batches []arrow.RecordBatch) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for c := range cols {
		var parts []arrow.Array
		for _, b := range batches {
			parts = append(parts, b.Column(c))
		}
		if len(parts) == 0 {
			cols[c] = array.MakeArrayOfNull(mem, sc.Field(c).Type, 0)
			continue
		}
		var err error
		cols[c], err = array.Concatenate(parts, mem)
		require.NoError(t, err)
	}
	return cols
}

// scanAll scans every morsel of tbl and returns the batches; it checks batch invariants.
func scanAll(ctx context.Context, t *testing.T, mem memory.Allocator, tbl catalog.Table, req catalog.ScanRequest) (*arrow.Schema, []arrow.RecordBatch) {
	morsels, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	var sc *arrow.Schema
	var out []arrow.RecordBatch
	for _, m := range morsels {
		rr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		sc = rr.Schema()
		require.Equal(t, len(req.Columns), sc.NumFields())
		for {
			b, err := rr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			require.LessOrEqual(t, b.NumRows(), int64(64<<10))
			require.Positive(t, b.NumRows())
			require.True(t, b.Schema().Equal(sc))
			out = append(out, b)
		}
		require.NoError(t, rr.Close())
		require.NoError(t, rr.Close(), "Close twice")
	}
	return sc, out
}

func allColumns(tbl catalog.Table) []int {
	cols := make([]int, tbl.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	return cols
}

func release[T interface{ Release() }](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}

// TestScanMatchesPylance compares every checked version of every table, row for row, with
// what pylance's to_table() returns.
func TestScanMatchesPylance(t *testing.T) {
	dir, expect := tables(t)
	ctx := context.Background()
	cat := openCatalog(t, dir)
	for name, te := range expect {
		for vs, rows := range te.Expected {
			v, err := strconv.ParseUint(vs, 10, 64)
			require.NoError(t, err)
			t.Run(fmt.Sprintf("%s/v%d", name, v), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				tbl, err := cat.LoadTable(ctx, name, catalog.VersionRef{Version: v})
				require.NoError(t, err)
				require.Equal(t, v, tbl.Version())
				require.Equal(t, name, tbl.Name())
				require.Equal(t, rows, tbl.Stats().Rows)

				wantSchema, want := readExpected(t, mem, filepath.Join(dir, fmt.Sprintf("%s.v%d.arrow", name, v)))
				defer release(want)
				require.Equal(t, wantSchema.NumFields(), tbl.Schema().NumFields())
				for i := range wantSchema.NumFields() {
					require.Equal(t, wantSchema.Field(i).Name, tbl.Schema().Field(i).Name)
					require.True(t, arrow.TypeEqual(wantSchema.Field(i).Type, tbl.Schema().Field(i).Type),
						"column %s: %s vs %s", wantSchema.Field(i).Name, wantSchema.Field(i).Type, tbl.Schema().Field(i).Type)
				}

				sc, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
				defer release(batches)
				got := concatColumns(t, mem, sc, batches)
				defer release(got)
				for i := range want {
					require.Equal(t, int(rows), got[i].Len())
					require.True(t, array.Equal(want[i], got[i]), "column %s differs", sc.Field(i).Name)
				}
			})
		}
	}
}

func TestScanProjectionAndCount(t *testing.T) {
	dir, expect := tables(t)
	ctx := context.Background()
	cat := openCatalog(t, dir)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, name := range []string{"t20", "t21", "t22", "big", "evolved"} {
		t.Run(name, func(t *testing.T) {
			tbl, err := cat.LoadTable(ctx, name, catalog.VersionRef{})
			require.NoError(t, err)
			te := expect[name]
			require.Equal(t, te.Latest, tbl.Version())
			wantRows := te.Expected[strconv.FormatUint(te.Latest, 10)]

			// count(*): no columns, right row counts.
			_, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Limit: -1})
			var n int64
			for _, b := range batches {
				require.Zero(t, b.NumCols())
				n += b.NumRows()
			}
			release(batches)
			require.Equal(t, wantRows, n)

			// Reordered subset: last column first, then the first.
			cols := []int{tbl.Schema().NumFields() - 1, 0}
			wantSchema, want := readExpected(t, mem, filepath.Join(dir, fmt.Sprintf("%s.v%d.arrow", name, te.Latest)))
			defer release(want)
			sc, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: cols, Limit: -1})
			defer release(batches)
			got := concatColumns(t, mem, sc, batches)
			defer release(got)
			for i, c := range cols {
				require.Equal(t, wantSchema.Field(c).Name, sc.Field(i).Name)
				require.True(t, array.Equal(want[c], got[i]), "column %s", sc.Field(i).Name)
			}
		})
	}
}

func TestListTables(t *testing.T) {
	dir, _ := tables(t)
	names, err := openCatalog(t, dir).ListTables(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"big", "evolved", "stable", "t20", "t21", "t22"}, names)

	empty, err := openCatalog(t, t.TempDir()).ListTables(context.Background())
	require.NoError(t, err)
	require.Empty(t, empty)
}

func TestLoadTableVersionRefs(t *testing.T) {
	dir, _ := tables(t)
	ctx := context.Background()
	cat := openCatalog(t, dir)
	v1, err := cat.LoadTable(ctx, "t21", catalog.VersionRef{Version: 1})
	require.NoError(t, err)
	tagged, err := cat.LoadTable(ctx, "t21", catalog.VersionRef{Tag: "before_delete"})
	require.NoError(t, err)
	require.Equal(t, uint64(2), tagged.Version())
	require.Equal(t, int64(4000), tagged.Stats().Rows)
	require.Equal(t, 4, tagged.Stats().Fragments)

	// The newest version at or after version 2's commit is at least 2; far in the future is
	// the latest; version 1's own commit time gives version 1 unless version 2 shares it.
	latest, err := cat.LoadTable(ctx, "t21", catalog.VersionRef{Timestamp: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, uint64(3), latest.Version())
	require.Equal(t, int64(3000), v1.Stats().Rows)

	cases := []struct {
		name string
		at   catalog.VersionRef
		want error
	}{
		{"nope", catalog.VersionRef{}, catalog.ErrNoSuchTable},
		{"../t21", catalog.VersionRef{}, catalog.ErrNoSuchTable},
		{"", catalog.VersionRef{}, catalog.ErrNoSuchTable},
		{"nope", catalog.VersionRef{Version: 1}, catalog.ErrNoSuchTable},
		{"t21", catalog.VersionRef{Version: 99}, catalog.ErrNoSuchVersion},
		{"t21", catalog.VersionRef{Tag: "missing"}, catalog.ErrNoSuchVersion},
		{"t21", catalog.VersionRef{Timestamp: time.Unix(0, 0)}, catalog.ErrNoSuchVersion},
	}
	for _, c := range cases {
		_, err := cat.LoadTable(ctx, c.name, c.at)
		require.ErrorIs(t, err, c.want, "%q at %s", c.name, c.at)
		require.Contains(t, err.Error(), fmt.Sprintf("%q", c.name))
	}
}

func TestMorselsAndScanErrors(t *testing.T) {
	dir, _ := tables(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := openCatalog(t, dir).LoadTable(ctx, "t20", catalog.VersionRef{})
	require.NoError(t, err)
	all, err := tbl.Morsels(ctx, catalog.ScanRequest{Limit: -1})
	require.NoError(t, err)
	require.Len(t, all, 4)
	for i, m := range all {
		require.Equal(t, uint64(i), m.Fragment)
		require.Zero(t, m.Start)
		require.Equal(t, int64(1000), m.End)
	}
	limited, err := tbl.Morsels(ctx, catalog.ScanRequest{Limit: 10})
	require.NoError(t, err)
	require.Len(t, limited, 1)

	_, err = tbl.Scan(ctx, catalog.ScanRequest{}, catalog.Morsel{Fragment: 42, End: 1}, mem)
	require.Error(t, err)
	_, err = tbl.Scan(ctx, catalog.ScanRequest{}, catalog.Morsel{Fragment: 0, End: 1001}, mem)
	require.Error(t, err)
	_, err = tbl.Scan(ctx, catalog.ScanRequest{Columns: []int{99}}, all[0], mem)
	require.Error(t, err)

	// A partial morsel with deletions inside: fragment 0 rows [5, 30) minus multiples of 7.
	rr, err := tbl.Scan(ctx, catalog.ScanRequest{Columns: []int{0}}, catalog.Morsel{Fragment: 0, Start: 5, End: 30}, mem)
	require.NoError(t, err)
	defer func() { require.NoError(t, rr.Close()) }()
	b, err := rr.Next(ctx)
	require.NoError(t, err)
	defer b.Release()
	got := append([]int64(nil), b.Column(0).(*array.Int64).Int64Values()...)
	var want []int64
	for i := int64(5); i < 30; i++ {
		if i%7 != 0 {
			want = append(want, i)
		}
	}
	require.Equal(t, want, got)
	end, err := rr.Next(ctx)
	require.NoError(t, err)
	require.Nil(t, end)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	rr2, err := tbl.Scan(ctx, catalog.ScanRequest{Columns: []int{0}}, all[0], mem)
	require.NoError(t, err)
	_, err = rr2.Next(cctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, rr2.Close())
}

// TestOldFixtureScans scans 2.0 datasets written by old Lance versions (read in place) and
// compares them with what pylance reads.
func TestOldFixtureScans(t *testing.T) {
	dir, _ := tables(t)
	fx := fixturesDir(t)
	if fx == "" {
		t.Skip("old-Lance fixtures not found next to the repository (../shared/fixtures/lance-test-data): skipping")
	}
	require.NotEmpty(t, pyExpect.Fixtures)
	ctx := context.Background()
	for rel, fe := range pyExpect.Fixtures {
		t.Run(rel, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			cat := openCatalog(t, filepath.Join(fx, filepath.Dir(rel)))
			name := strings.TrimSuffix(filepath.Base(rel), ".lance")
			tbl, err := cat.LoadTable(ctx, name, catalog.VersionRef{})
			require.NoError(t, err)
			_, want := readExpected(t, mem, filepath.Join(dir, fe.Expected))
			defer release(want)
			sc, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
			defer release(batches)
			got := concatColumns(t, mem, sc, batches)
			defer release(got)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, int(fe.Rows), got[i].Len())
				require.True(t, array.Equal(want[i], got[i]), "column %s", sc.Field(i).Name)
			}
		})
	}
}
