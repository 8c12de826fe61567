package lancecat_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// makeBases runs testdata/make_bases.py: pylance writes datasets with files under base paths
// (registered bases of both kinds, and a shallow clone). It returns the catalog root and
// pylance's rows of every version of every table.
func makeBases(t *testing.T) (string, map[string]map[string][][]any) {
	out := t.TempDir()
	cmd := exec.Command(testutil.Python(t), "testdata/make_bases.py", out)
	b, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("make_bases.py: %v: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	var want map[string]map[string][][]any
	require.NoError(t, json.Unmarshal(b, &want))
	return filepath.Join(out, "root"), want
}

// jsonRows scans every row of tbl and returns the rows, sorted by the first column, in
// their JSON form (as pylance's rows were decoded).
func jsonRows(t *testing.T, tbl catalog.Table) [][]any {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, batches := scanAll(ctx, t, mem, tbl, catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1})
	defer release(batches)
	rows := [][]any{}
	for _, b := range batches {
		for r := range int(b.NumRows()) {
			row := make([]any, b.NumCols())
			for c := range row {
				row[c] = b.Column(c).GetOneForMarshal(r)
			}
			rows = append(rows, row)
		}
	}
	raw, err := json.Marshal(rows)
	require.NoError(t, err)
	var out [][]any
	require.NoError(t, json.Unmarshal(raw, &out))
	slices.SortFunc(out, func(a, b []any) int { return int(a[0].(float64) - b[0].(float64)) })
	return out
}

// TestBasePathsMatchPylance reads every version of datasets whose data and deletion files
// live under base paths (non-root and dataset-root bases, a shallow clone reading its
// source's files) and compares the rows with pylance's.
func TestBasePathsMatchPylance(t *testing.T) {
	root, want := makeBases(t)
	c := openCatalog(t, root)
	ctx := context.Background()
	for _, name := range []string{"multibase", "clone"} {
		versions := want[name]
		require.NotEmpty(t, versions, name)
		for vs, rows := range versions {
			v, err := strconv.ParseUint(vs, 10, 64)
			require.NoError(t, err)
			t.Run(name+"@"+vs, func(t *testing.T) {
				tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Version: v})
				require.NoError(t, err)
				require.Equal(t, rows, jsonRows(t, tbl))
			})
		}
	}
	ds, err := c.Dataset("multibase")
	require.NoError(t, err)
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	bases := table.BasePaths(m)
	require.Len(t, bases, 2)
	var sawBase, sawOwn bool
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			loc, err := ds.DataFileLocation(ctx, m, df)
			require.NoError(t, err)
			sawBase = sawBase || loc.Base != ""
			sawOwn = sawOwn || loc.Base == ""
		}
	}
	require.True(t, sawBase && sawOwn, "the table mixes files under bases and under its own data/")
}

// TestBasePathsStoreOpener: a store that cannot open base paths fails the scan with
// catalog.ErrNotSupported, and Options.Bases fixes that.
func TestBasePathsStoreOpener(t *testing.T) {
	root, want := makeBases(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, root)
	require.NoError(t, err)
	opaque := lanceio.NewCountingStore(store) // hides the file store's lanceio.Opener
	tbl, err := lancecat.New(opaque).LoadTable(ctx, "multibase", catalog.VersionRef{})
	require.NoError(t, err)
	_, err = tbl.Scan(ctx, catalog.ScanRequest{Columns: []int{0}, Limit: -1}, catalog.Morsel{Fragment: 0, End: 10}, mem)
	require.ErrorIs(t, err, catalog.ErrNotSupported)
	require.ErrorContains(t, err, "base paths without a store opener")

	withBases := lancecat.NewWithOptions(opaque, lancecat.Options{Bases: blobstore.Opener})
	tbl, err = withBases.LoadTable(ctx, "multibase", catalog.VersionRef{})
	require.NoError(t, err)
	require.Equal(t, want["multibase"][strconv.FormatUint(tbl.Version(), 10)], jsonRows(t, tbl))
}
