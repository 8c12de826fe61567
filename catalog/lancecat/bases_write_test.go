package lancecat_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

// basesRW runs testdata/bases_rw.py (mode "dump" or "write") on the dataset at uri; dump
// returns pylance's rows of every version.
func basesRW(t *testing.T, mode, uri string) map[string][][]any {
	cmd := exec.Command(testutil.Python(t), "testdata/bases_rw.py", mode, uri)
	b, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("bases_rw.py %s: %v: %s", mode, err, ee.Stderr)
	}
	require.NoError(t, err)
	if mode != "dump" {
		return nil
	}
	var out map[string][][]any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// rowsOf builds one batch of the table's columns (x int64, s string, and y int64 if the
// table has it) with x = xs[i], s = prefix+x, y = 2x.
func rowsOf(mem memory.Allocator, sc *arrow.Schema, prefix string, xs ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, x := range xs {
		for i, f := range sc.Fields() {
			switch f.Name {
			case "s":
				b.Field(i).(*array.StringBuilder).Append(prefix + strconv.FormatInt(x, 10))
			case "y":
				b.Field(i).(*array.Int64Builder).Append(2 * x)
			default:
				b.Field(i).(*array.Int64Builder).Append(x)
			}
		}
	}
	return b.NewRecordBatch()
}

// addrsOf returns the row addresses of the rows with the given x (column 0) in the latest
// version of table name, in the order of xs.
func addrsOf(t *testing.T, c *lancecat.Catalog, name string, xs ...int64) []uint64 {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{})
	require.NoError(t, err)
	req := catalog.ScanRequest{Columns: []int{0}, RowAddr: true, Limit: -1}
	morsels, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	at := map[int64]uint64{}
	for _, m := range morsels {
		rr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		for {
			b, err := rr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			x, a := b.Column(0).(*array.Int64), b.Column(1).(*array.Uint64)
			for i := range x.Len() {
				at[x.Value(i)] = a.Value(i)
			}
			b.Release()
		}
		require.NoError(t, rr.Close())
	}
	out := make([]uint64, len(xs))
	for i, x := range xs {
		a, ok := at[x]
		require.True(t, ok, "row x=%d", x)
		out[i] = a
	}
	return out
}

// treeState lists the files under dir with their sizes and modification times.
func treeState(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = strconv.FormatInt(fi.Size(), 10) + "@" + fi.ModTime().String()
		return nil
	}))
	return out
}

// requireSameAsPylance checks that flightd reads every version pylance lists as pylance does.
func requireSameAsPylance(t *testing.T, c *lancecat.Catalog, name string, py map[string][][]any) {
	ctx := context.Background()
	require.NotEmpty(t, py)
	for vs, rows := range py {
		v, err := strconv.ParseUint(vs, 10, 64)
		require.NoError(t, err)
		tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Version: v})
		require.NoError(t, err)
		require.Equal(t, rows, jsonRows(t, tbl), "%s version %d", name, v)
	}
}

// baseWriteCase is one pylance-written table with base paths and the rows flightd changes.
type baseWriteCase struct {
	name  string
	del   []int64  // x of the rows flightd deletes: under each base and in the root
	upd   int64    // x of a row under a base that flightd updates (s becomes "u<x>")
	bases []string // the base directories, relative to makeBases' output directory
}

// TestBasePathsWritesMatchPylance: on datasets pylance wrote with files under base paths
// (registered bases of both kinds, a shallow clone), flightd appends, deletes rows under
// every base and in the root, updates a row under a base, and compacts. Each commit keeps
// the base paths, their feature flag and the base ids of untouched files, and writes its new
// files to the dataset's root. pylance reads every version as flightd does, keeps writing
// (append, delete, compaction), and flightd reads pylance's versions as pylance does.
// Cleanup then removes old versions without touching any file under a base, and the
// tagged version that still reads files under bases reads the same before and after.
func TestBasePathsWritesMatchPylance(t *testing.T) {
	t.Parallel()
	root, want := makeBases(t)
	out := filepath.Dir(root)
	for _, tc := range []baseWriteCase{
		{name: "multibase", del: []int64{5, 12, 22}, upd: 7, bases: []string{"other", "r2"}},
		{name: "clone", del: []int64{105, 122}, upd: 113, bases: []string{"src.lance"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the tables share no base
			c := openCatalog(t, root)
			uri := filepath.Join(root, tc.name+".lance")
			before := map[string]map[string]string{}
			for _, b := range tc.bases {
				before[b] = treeState(t, filepath.Join(out, b))
			}
			tagged := writeOnBases(t, c, tc)
			latest, err := c.LoadTable(context.Background(), tc.name, catalog.VersionRef{})
			require.NoError(t, err)
			requireWantedRows(t, want[tc.name], tc, jsonRows(t, latest))

			py := basesRW(t, "dump", uri)
			requireSameAsPylance(t, c, tc.name, py)
			basesRW(t, "write", uri)
			py = basesRW(t, "dump", uri)
			requireSameAsPylance(t, c, tc.name, py)

			ds, err := c.Dataset(tc.name)
			require.NoError(t, err)
			st, err := ds.Cleanup(context.Background(), time.Now().Add(time.Hour))
			require.NoError(t, err)
			require.Positive(t, st.Manifests)
			require.Positive(t, st.DataFiles, "the root's data files of dropped versions are removed")
			for _, b := range tc.bases {
				require.Equal(t, before[b], treeState(t, filepath.Join(out, b)), "files under base %s", b)
			}
			after := basesRW(t, "dump", uri)
			require.Len(t, after, 2, "the tagged version and the latest are kept")
			for vs, rows := range after {
				require.Equal(t, py[vs], rows, "version %s", vs)
			}
			require.Contains(t, after, strconv.FormatUint(tagged, 10))
			requireSameAsPylance(t, c, tc.name, after)
		})
	}
}

// requireWantedRows checks the rows flightd's writes leave: pylance's last version minus the
// deleted rows, with the updated row and the appended rows.
func requireWantedRows(t *testing.T, versions map[string][][]any, tc baseWriteCase, got [][]any) {
	last := 0
	for vs := range versions {
		v, err := strconv.Atoi(vs)
		require.NoError(t, err)
		last = max(last, v)
	}
	var wantRows [][]any
	for _, r := range versions[strconv.Itoa(last)] {
		x := int64(r[0].(float64))
		if slices.Contains(tc.del, x) {
			continue
		}
		if x == tc.upd {
			r = slices.Clone(r)
			r[1] = "u" + strconv.FormatInt(x, 10)
		}
		wantRows = append(wantRows, r)
	}
	for x := int64(1000); x < 1005; x++ {
		r := []any{float64(x), "s" + strconv.FormatInt(x, 10)}
		if len(wantRows[0]) == 3 {
			r = append(r, float64(2*x))
		}
		wantRows = append(wantRows, r)
	}
	require.Equal(t, wantRows, got)
}

// writeOnBases does flightd's writes of tc (append, delete, update, tag, compact), checking
// every manifest, and returns the tagged version.
func writeOnBases(t *testing.T, c *lancecat.Catalog, tc baseWriteCase) uint64 {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ds, err := c.Dataset(tc.name)
	require.NoError(t, err)
	m0, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, m0.Proto.GetBasePaths())
	tbl, err := c.LoadTable(ctx, tc.name, catalog.VersionRef{})
	require.NoError(t, err)
	sc := tbl.Schema()

	app := rowsOf(mem, sc, "s", 1000, 1001, 1002, 1003, 1004)
	defer app.Release()
	v, err := c.Append(ctx, tc.name, []arrow.RecordBatch{app})
	require.NoError(t, err)
	m := checkBasesKept(t, ds, m0, v)
	for _, f := range m0.Fragments() {
		require.True(t, proto.Equal(f, m.Fragments()[fragIndex(t, m, f.GetId())]),
			"fragment %d is untouched, base ids included", f.GetId())
	}

	addrs := addrsOf(t, c, tc.name, append(slices.Clone(tc.del), tc.upd)...)
	v, err = c.DeleteRows(ctx, tc.name, v, addrs[:len(tc.del)])
	require.NoError(t, err)
	m = checkBasesKept(t, ds, m0, v)
	underBase := 0
	for _, a := range addrs[:len(tc.del)] {
		f := m.Fragments()[fragIndex(t, m, a>>32)]
		require.NotNil(t, f.GetDeletionFile())
		require.Nil(t, f.GetDeletionFile().BaseId, "a new deletion file goes to the root")
		loc, err := ds.DeletionFileLocation(ctx, m, f)
		require.NoError(t, err)
		_, err = ds.Store().Size(ctx, loc.Path)
		require.NoError(t, err, "deletion file %s", loc)
		if f.GetFiles()[0].BaseId != nil {
			underBase++
		}
	}
	require.Positive(t, underBase, "rows of files under a base were deleted")

	upd := rowsOf(mem, sc, "u", tc.upd)
	defer upd.Release()
	v, err = c.UpdateRows(ctx, tc.name, v, addrs[len(tc.del):], []arrow.RecordBatch{upd})
	require.NoError(t, err)
	m = checkBasesKept(t, ds, m0, v)
	require.NotNil(t, m.Fragments()[fragIndex(t, m, addrs[len(tc.del)]>>32)].GetFiles()[0].BaseId,
		"the updated row was under a base")
	tagged := v
	require.NoError(t, ds.CreateTag(ctx, "keep", tagged))

	v, _, err = c.Compact(ctx, tc.name, &lancecat.CompactOptions{Allocator: mem})
	require.NoError(t, err)
	m = checkBasesKept(t, ds, m0, v)
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			require.Nil(t, df.BaseId, "compaction writes to the root")
		}
	}
	return tagged
}

// checkBasesKept loads version v and checks that it keeps m0's base paths and flag 16 and
// that every file without a base id in it is in the dataset's own store.
func checkBasesKept(t *testing.T, ds *table.Dataset, m0 *table.Manifest, v uint64) *table.Manifest {
	ctx := context.Background()
	m, err := ds.Checkout(ctx, v)
	require.NoError(t, err)
	require.Len(t, m.Proto.GetBasePaths(), len(m0.Proto.GetBasePaths()))
	for i, b := range m0.Proto.GetBasePaths() {
		require.True(t, proto.Equal(b, m.Proto.GetBasePaths()[i]), "base path %d", b.GetId())
	}
	require.NotZero(t, m.Proto.GetReaderFeatureFlags()&table.FlagBasePaths)
	require.NotZero(t, m.Proto.GetWriterFeatureFlags()&table.FlagBasePaths)
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			loc, err := ds.DataFileLocation(ctx, m, df)
			require.NoError(t, err)
			if df.BaseId == nil {
				_, err = ds.Store().Size(ctx, loc.Path)
				require.NoError(t, err, "data file %s", loc)
			}
		}
	}
	return m
}

// fragIndex is the index of fragment id in m.Fragments().
func fragIndex(t *testing.T, m *table.Manifest, id uint64) int {
	for i, f := range m.Fragments() {
		if f.GetId() == id {
			return i
		}
	}
	t.Fatalf("version %d has no fragment %d", m.Version(), id)
	return -1
}
