package lancecat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
)

// ixOracle is what testdata/index_tables.py answers about ix: per SQL condition, the u of
// the matching rows (pylance with and without its indexes, DuckDB), and the matching row
// addresses of the LABEL_LIST conditions.
type ixOracle struct {
	Query map[string]struct {
		Lance        []int64 `json:"lance"`
		LanceNoIndex []int64 `json:"lance_noindex"`
		DuckDB       []int64 `json:"duckdb"`
	} `json:"query"`
	Labels map[string][]uint64 `json:"labels"`
}

var (
	ixOnce   sync.Once
	ixDir    string
	ixAnswer ixOracle
	ixErr    error
)

// runPy runs testdata/index_tables.py with stdin and returns its stdout.
func runPy(py, stdin string, args ...string) ([]byte, error) {
	cmd := exec.Command(py, append([]string{"testdata/index_tables.py"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return out, err
}

// indexTables builds ix.lance, plain.lance and big.lance with pylance once per test binary,
// in a directory under the one TestMain removes, and asks the oracles about indexCases and
// labelCases in the same run.
func indexTables(t *testing.T) (string, *ixOracle) {
	t.Helper()
	root, _ := tables(t)
	ixOnce.Do(func() {
		ixDir = filepath.Join(root, "index-tables")
		if ixErr = os.MkdirAll(ixDir, 0o755); ixErr != nil {
			return
		}
		req := map[string][]string{"query": {}, "labels": {}}
		for _, c := range indexCases {
			req["query"] = append(req["query"], c.cond)
		}
		for _, c := range labelCases {
			req["labels"] = append(req["labels"], c.sql)
		}
		in, err := json.Marshal(req)
		if ixErr = err; err != nil {
			return
		}
		py := testutil.Python(t)
		done := make(chan error, 1)
		go func() { _, err := runPy(py, "", "big", ixDir); done <- err }()
		out, err := runPy(py, string(in), "build", ixDir)
		ixErr = errors.Join(err, <-done)
		if ixErr == nil {
			ixErr = json.Unmarshal(out, &ixAnswer)
		}
	})
	require.NoError(t, ixErr)
	return ixDir, &ixAnswer
}

// query plans sql as flightd does (SQL → Substrait → logical → optimizer) and returns the
// optimized plan and the first column's int64 values.
func query(ctx context.Context, t *testing.T, cat catalog.Catalog, mem memory.Allocator, sql string) (plan.Node, []int64) {
	t.Helper()
	p := planner.New(cat)
	prep, err := p.PlanSQL(ctx, sql)
	require.NoError(t, err)
	node, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err)
	node = optimize.OptimizeContext(ctx, node)
	op, err := build.Build(node, flexec.Env{Mem: mem, BatchSize: 1000, Parallelism: 2})
	require.NoError(t, err)
	batches, err := flexec.Collect(ctx, op)
	require.NoError(t, err)
	defer release(batches)
	out := []int64{}
	for _, b := range batches {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return node, out
}

// findScan returns the first scan of n.
func findScan(n plan.Node) *plan.Scan {
	if s, ok := n.(*plan.Scan); ok {
		return s
	}
	for _, c := range n.Children() {
		if s := findScan(c); s != nil {
			return s
		}
	}
	return nil
}

type indexCase struct {
	cond  string
	index string // the index EXPLAIN must show; "" when none is used
}

var indexCases = []indexCase{
	{"u = 4242", "u_idx (BTree) on u"}, // in the fragment deleted whole
	{"u = 2500", "u_idx (BTree) on u"},
	{"u = 12500", "u_idx (BTree) on u"}, // in the fragment appended after the index
	{"u = 2503", "u_idx (BTree) on u"},  // deleted row
	{"u IN (1, 2, 3, 7000, 12001)", "u_idx (BTree) on u"},
	{"u < 50", "u_idx (BTree) on u"},
	{"u BETWEEN 100 AND 120", "u_idx (BTree) on u"},
	{"u > 11990", "u_idx (BTree) on u"},
	{"u >= 2990 AND u < 3010", "u_idx (BTree) on u"},
	{"u IS NULL", "u_idx (BTree) on u"},
	{"NOT (u >= 10)", "u_idx (BTree) on u"},
	{"u = 5 OR u = 12000", "u_idx (BTree) on u"},
	{"u = 5 OR s = 'v003'", "u_idx (BTree) on u + s_idx (Bitmap) on s"},
	{"u < 3000 AND u > 2900 AND pad > 'p'", "u_idx (BTree) on u"},
	{"s = 'v003'", "s_idx (Bitmap) on s"},
	{"s IN ('v001', 'v029')", "s_idx (Bitmap) on s"},
	{"s IS NULL AND u < 6000", "u_idx (BTree) on u + s_idx (Bitmap) on s"},
	{"s < 'v002' AND u < 1000", "u_idx (BTree) on u + s_idx (Bitmap) on s"},
	{"NOT (s <> 'v003') AND u < 2000", "u_idx (BTree) on u"},
	{"f < 100", "f_idx (ZoneMap) on f"},
	{"f BETWEEN 1000 AND 1001", "f_idx (ZoneMap) on f"},
	{"k = 5000", "k_idx (BloomFilter) on k"},
	{"k IN (10, 8010)", ""}, // fragments 0, 2 and 4: 70% of the table
	{"ts < TIMESTAMP '2024-01-01 01:00:00'", "ts_idx (BTree) on ts"},
	{"ts = TIMESTAMP '2024-01-05 00:00:00'", "ts_idx (BTree) on ts"},
	{"s IS NOT NULL", ""},               // most rows: a plain scan is cheaper
	{"NOT (f < 100) AND u > 0", ""},     // a zone map cannot be negated; u > 0 is everything
	{"u + 1 = 5", ""},                   // not indexable
	{"u > 100 OR pad = 'p0000007'", ""}, // one branch not indexable
}

// Queries through planner and executor equal DuckDB's and pylance's (with and without its
// indexes), on the indexed table and on the same data without indexes, and EXPLAIN shows
// the index decision.
func TestIndexQueriesMatchOracles(t *testing.T) {
	dir, want := indexTables(t)
	cat := openCatalog(t, dir)
	p := planner.New(cat)
	for _, c := range indexCases {
		t.Run(c.cond, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			w := want.Query[c.cond]
			require.Equal(t, w.DuckDB, w.Lance, "pylance with index vs DuckDB")
			require.Equal(t, w.DuckDB, w.LanceNoIndex, "pylance without index vs DuckDB")
			node, got := query(ctx, t, cat, mem, "SELECT u FROM ix WHERE "+c.cond+" ORDER BY u")
			require.Equal(t, w.DuckDB, got)
			_, plain := query(ctx, t, cat, mem, "SELECT u FROM plain WHERE "+c.cond+" ORDER BY u")
			require.Equal(t, w.DuckDB, plain)

			scan := findScan(node)
			require.NotNil(t, scan)
			text, err := p.Explain(ctx, "SELECT u FROM ix WHERE "+c.cond)
			require.NoError(t, err)
			if c.index == "" {
				require.Nil(t, scan.Index, "index used: %s", text)
				require.NotContains(t, text, "index:")
				return
			}
			require.NotNil(t, scan.Index, text)
			require.Contains(t, text, "index: "+c.index+", ")
			require.Regexp(t, `fragments \d+ of 4, rows \d+ of 10000, table `, text)
		})
	}
}

// labelCases are LABEL_LIST predicates: pylance's SQL and our IndexExpr operator and values.
var labelCases = []struct {
	sql  string
	op   catalog.IndexOp
	vals []string
}{
	{"array_has_any(l, make_array('a1'))", catalog.IndexArrayHasAny, []string{"a1"}},
	{"array_has_all(l, make_array('a1', 'b2'))", catalog.IndexArrayHasAll, []string{"a1", "b2"}},
	{"array_has_any(l, make_array('zz'))", catalog.IndexArrayHasAny, []string{"zz"}},
}

// SelectRows answers LABEL_LIST predicates (not expressible in SQL yet) with a superset of
// pylance's matching rows, scans uncovered fragments whole, drops the deleted fragment and
// memoizes its answer; a scan with the selection returns exactly the matching live rows
// after filtering.
func TestIndexSelectRowsLabelList(t *testing.T) {
	dir, oracle := indexTables(t)
	want := oracle.Labels
	ctx := context.Background()
	tbl, err := openCatalog(t, dir).LoadTable(ctx, "ix", catalog.VersionRef{})
	require.NoError(t, err)
	ix := tbl.(catalog.Indexed)
	infos, err := ix.Indexes(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 6)
	l := slices.IndexFunc(infos, func(i catalog.IndexInfo) bool { return i.Name == "l_idx" })
	require.Equal(t, "LabelList", infos[l].Type)
	require.Equal(t, []uint64{0, 2, 3}, infos[l].Fragments, "fragment 1 was deleted, 4 appended later")
	for _, c := range labelCases {
		cond := c.sql
		t.Run(cond, func(t *testing.T) {
			e := &catalog.IndexExpr{Kind: catalog.IndexPred, Column: infos[l].Column, Op: c.op}
			for _, v := range c.vals {
				e.Values = append(e.Values, scalar.NewStringScalar(v))
			}
			sel, err := ix.SelectRows(ctx, e)
			require.NoError(t, err)
			require.NotNil(t, sel)
			again, err := ix.SelectRows(ctx, e)
			require.NoError(t, err)
			require.Same(t, sel, again, "memoized")
			require.Equal(t, 4, sel.TotalFragments)
			require.True(t, sel.Fragments[4].All, "the appended fragment is scanned whole")
			require.Equal(t, []string{"l_idx (LabelList)"}, usedNames(sel))
			for _, a := range want[cond] {
				fs := sel.Fragments[a>>32]
				require.True(t, fs.All || inRanges(fs.Ranges, int64(a&0xFFFFFFFF)), "row %d:%d missing", a>>32, a&0xFFFFFFFF)
			}
			if len(c.vals) == 1 && c.vals[0] == "zz" {
				for _, f := range []uint64{0, 2, 3} {
					require.True(t, sel.Fragments[f].None(), "fragment %d", f)
				}
			}
			// The scan of the selection, filtered by pylance's truth, gives pylance's rows.
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			req := catalog.ScanRequest{Columns: []int{0}, Limit: -1, Index: &catalog.IndexFilter{Expr: e}}
			got := scanAddrs(ctx, t, tbl, req, mem, want[cond])
			require.Equal(t, want[cond], got)
		})
	}
}

func usedNames(sel *catalog.RowSelection) []string {
	var out []string
	for _, u := range sel.Used {
		out = append(out, u.String())
	}
	return out
}

func inRanges(rs []catalog.RowRange, row int64) bool {
	for _, r := range rs {
		if row >= r.Start && row < r.End {
			return true
		}
	}
	return false
}

// scanAddrs scans tbl with req (column 0 is u = fragment-local position known from the
// data: u is unique) and returns the addresses of the rows read that are in keep.
func scanAddrs(ctx context.Context, t *testing.T, tbl catalog.Table, req catalog.ScanRequest, mem memory.Allocator, keep []uint64) []uint64 {
	// u = 3000*fragment + offset for fragments 0-3; fragment 4 starts at u = 12000.
	addrOf := func(u int64) uint64 { return uint64(u/3000)<<32 | uint64(u%3000) }
	_, batches := scanAll(ctx, t, mem, tbl, req)
	defer release(batches)
	got := []uint64{}
	for _, b := range batches {
		for _, u := range b.Column(0).(*array.Int64).Int64Values() {
			if a := addrOf(u); slices.Contains(keep, a) {
				got = append(got, a)
			}
		}
	}
	slices.Sort(got)
	return got
}

// A missing index file: the query falls back to a scan (the index is not used) and the
// results stay correct.
func TestIndexBrokenFilesFallBack(t *testing.T) {
	root, _ := indexTables(t)
	src := filepath.Join(root, "ix.lance")
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "ix.lance"), os.DirFS(src)))
	removed := 0
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "ix.lance", "_indices"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (d.Name() == "page_lookup.lance" || d.Name() == "bitmap_page_lookup.lance") {
			removed++
			return os.Remove(p)
		}
		return err
	}))
	require.Equal(t, 4, removed, "u_idx, ts_idx (BTree), s_idx and l_idx (bitmap files)")
	cat := openCatalog(t, dir)
	ctx := context.Background()
	for _, c := range []struct {
		cond string
		want []int64
	}{
		{"u = 2500", []int64{2500}},
		{"u IN (1, 3, 7000, 12001)", []int64{1, 7000, 12001}},
		{"s = 'v003' AND u < 100", []int64{}},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		node, got := query(ctx, t, cat, mem, "SELECT u FROM ix WHERE "+c.cond+" ORDER BY u")
		require.Equal(t, c.want, got, c.cond)
		require.Nil(t, findScan(node).Index, c.cond)
		mem.AssertSize(t, 0)
	}
}

// A point lookup on a 1M-row table reads a tiny fraction of the table's bytes, and EXPLAIN
// ANALYZE shows the index and the bytes read.
func TestIndexPointLookupReadsLittle(t *testing.T) {
	dir, _ := indexTables(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	inner, err := blobstore.Open(ctx, dir)
	require.NoError(t, err)
	store := lanceio.NewCountingStore(inner)
	// No data cache: the EXPLAIN ANALYZE below runs the lookup again and must read again.
	cat := lancecat.NewWithOptions(store, lancecat.Options{DataCacheBytes: -1})
	p := planner.New(cat)
	prep, err := p.PlanSQL(ctx, "SELECT id, v, name FROM big WHERE id = 654321")
	require.NoError(t, err)
	node, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err)
	node = optimize.OptimizeContext(ctx, node)
	scan := findScan(node)
	require.NotNil(t, scan.Index)
	require.Contains(t, scan.Index.Explain, "index: id_idx (BTree) on id, fragments 1 of 4, rows 1 of 1000000, table ")

	store.Reset()
	op := ops.NewScan(scan, flexec.Env{Mem: mem})
	batches, err := flexec.Collect(ctx, op)
	require.NoError(t, err)
	defer release(batches)
	require.Len(t, batches, 1)
	require.Equal(t, int64(1), batches[0].NumRows())
	require.Equal(t, int64(654321), batches[0].Column(0).(*array.Int64).Value(0))
	require.Equal(t, "name-000654321", batches[0].Column(2).(*array.String).Value(0))

	var tableBytes int64
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "big.lance", "data"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, ierr := d.Info()
			tableBytes += info.Size()
			return ierr
		}
		return err
	}))
	t.Logf("index scan: ScanStats %d B, store %d B (index and file metadata included) of %d B", op.BytesRead(), store.BytesRead(), tableBytes)
	require.Positive(t, op.BytesRead())
	// One row costs one mini-block chunk per column (a few KiB each): 12,968-13,336 of
	// 13.3-14.0 MB (pylance's file sizes vary from run to run), 0.095-0.1006%. The issue's
	// 0.1% bound is for 10M rows, where the same lookup reads 0.01%: BenchmarkIndexLookup
	// (bench/) checks it at FLIGHTD_BENCH_SCALE=1; here 0.125% leaves room for the variation.
	require.Less(t, op.BytesRead()*800, tableBytes, "under 0.125%% of the table's bytes")
	require.Less(t, store.BytesRead()*100, tableBytes, "under 1%% with the index and file metadata")

	text, err := build.ExplainAnalyze(ctx, node, flexec.Env{Mem: mem})
	require.NoError(t, err)
	require.Regexp(t, `Scan: big .*index: id_idx \(BTree\) on id, fragments 1 of 4, rows 1 of 1000000, table [0-9.]+ MiB .*rows=1 .*read=`, text)
}

// The Morsels of an index scan skip the fragments without selected rows.
func TestIndexMorsels(t *testing.T) {
	dir, _ := indexTables(t)
	ctx := context.Background()
	tbl, err := openCatalog(t, dir).LoadTable(ctx, "big", catalog.VersionRef{})
	require.NoError(t, err)
	id := slices.IndexFunc(tbl.Schema().Fields(), func(f arrow.Field) bool { return f.Name == "id" })
	e := &catalog.IndexExpr{Kind: catalog.IndexPred, Column: id, Op: catalog.IndexIn,
		Values: []scalar.Scalar{scalar.NewInt64Scalar(10), scalar.NewInt64Scalar(999_999)}}
	ms, err := tbl.Morsels(ctx, catalog.ScanRequest{Columns: []int{id}, Limit: -1, Index: &catalog.IndexFilter{Expr: e}})
	require.NoError(t, err)
	// Only the fragments holding the two rows, and in them only the selected rows.
	require.Equal(t, []catalog.Morsel{{Fragment: 0, Start: 10, End: 11}, {Fragment: 3, Start: 249_999, End: 250_000}}, ms)
	all, err := tbl.Morsels(ctx, catalog.ScanRequest{Columns: []int{id}, Limit: -1})
	require.NoError(t, err)
	require.Len(t, all, 4)
}

// withoutIndex returns a copy of the plan n with every scan's index filter removed.
func withoutIndex(n plan.Node) plan.Node {
	if s, ok := n.(*plan.Scan); ok {
		cp := *s
		cp.Index = nil
		return &cp
	}
	switch x := n.(type) {
	case *plan.Project:
		return plan.NewProject(withoutIndex(x.Input), x.Exprs, x.Names)
	case *plan.Filter:
		return &plan.Filter{Input: withoutIndex(x.Input), Cond: x.Cond}
	case *plan.Sort:
		return &plan.Sort{Input: withoutIndex(x.Input), Keys: x.Keys}
	}
	return n
}

// run executes an optimized plan and returns the first column's int64 values.
func run(ctx context.Context, t *testing.T, n plan.Node, mem memory.Allocator) []int64 {
	t.Helper()
	op, err := build.Build(n, flexec.Env{Mem: mem})
	require.NoError(t, err)
	batches, err := flexec.Collect(ctx, op)
	require.NoError(t, err)
	defer release(batches)
	out := []int64{}
	for _, b := range batches {
		out = append(out, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}

// Indexes written by old Lance versions are used: 0.36's BTree, 0.20's Bitmap, and the
// BTrees of 0.18 and 0.20 in legacy v1 Lance files; results equal the plain scan's.
func TestIndexOldFixtures(t *testing.T) {
	fx := testutil.SharedFixtures(t)
	for _, c := range []struct {
		dir, table, sql string
		used            bool
		want            []int64
	}{
		{"0.36.0", "btree_in_index_pkg", "SELECT x FROM btree_in_index_pkg WHERE x = 500", true, []int64{500}},
		{"0.36.0", "btree_in_index_pkg", "SELECT x FROM btree_in_index_pkg WHERE x BETWEEN 10 AND 12 ORDER BY x", true, []int64{10, 11, 12}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT btree FROM old_btree_bitmap_indices WHERE btree = 3", true, []int64{3}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT btree FROM old_btree_bitmap_indices WHERE btree BETWEEN 2 AND 3 ORDER BY btree", true, []int64{2, 3}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT btree FROM old_btree_bitmap_indices WHERE btree IN (1, 4, 9) ORDER BY btree", true, []int64{1, 4}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT btree FROM old_btree_bitmap_indices WHERE btree > 2 ORDER BY btree", true, []int64{3, 4}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT btree FROM old_btree_bitmap_indices WHERE btree IS NULL", true, []int64{}},
		{"v0.20.0", "old_btree_bitmap_indices", "SELECT bitmap FROM old_btree_bitmap_indices WHERE bitmap IN (1, 4) ORDER BY bitmap", true, []int64{1, 4}},
		{"v0.18.2", "index_no_details", "SELECT id FROM index_no_details WHERE id = 42", true, []int64{42}},
		{"v0.18.2", "index_no_details", "SELECT id FROM index_no_details WHERE id < 5 ORDER BY id", true, []int64{0, 1, 2, 3, 4}},
		{"v0.18.2", "index_no_details", "SELECT id FROM index_no_details WHERE id IN (5, 50, 500) ORDER BY id", true, []int64{5, 50}},
		{"v0.18.2", "index_no_details", "SELECT id FROM index_no_details WHERE id >= 97 ORDER BY id", true, []int64{97, 98, 99}},
		{"v0.18.2", "index_no_details", "SELECT id FROM index_no_details WHERE id IS NULL", true, []int64{}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			p := planner.New(openCatalog(t, filepath.Join(fx, c.dir)))
			prep, err := p.PlanSQL(ctx, c.sql)
			require.NoError(t, err)
			node, err := p.Logical(ctx, prep.Substrait)
			require.NoError(t, err)
			node = optimize.OptimizeContext(ctx, node)
			text := plan.Explain(node)
			require.Equal(t, c.used, findScan(node).Index != nil, text)
			require.Equal(t, c.want, run(ctx, t, node, mem))
			require.Equal(t, c.want, run(ctx, t, withoutIndex(node), mem))
		})
	}
}

// Index scans produce the hidden _rowaddr column of the rows they take.
func TestIndexScanRowAddr(t *testing.T) {
	dir, _ := indexTables(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := planner.New(openCatalog(t, dir))
	prep, err := p.PlanSQL(ctx, "SELECT _rowaddr, u FROM ix WHERE u IN (1, 2503, 7000, 12001) ORDER BY u")
	require.NoError(t, err)
	node, err := p.Logical(ctx, prep.Substrait)
	require.NoError(t, err)
	node = optimize.OptimizeContext(ctx, node)
	require.NotNil(t, findScan(node).Index)
	op, err := build.Build(node, flexec.Env{Mem: mem})
	require.NoError(t, err)
	batches, err := flexec.Collect(ctx, op)
	require.NoError(t, err)
	defer release(batches)
	var addrs []uint64
	for _, b := range batches {
		addrs = append(addrs, b.Column(0).(*array.Uint64).Uint64Values()...)
	}
	// u = 2503 is deleted; 7000 is row 1000 of fragment 2; 12001 row 1 of fragment 4.
	require.Equal(t, []uint64{1, 2<<32 | 1000, 4<<32 | 1}, addrs)
}

// pathStore records the paths read through it.
type pathStore struct {
	lanceio.ObjectStore
	mu    sync.Mutex
	reads []string
}

func (s *pathStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	s.mu.Lock()
	s.reads = append(s.reads, path)
	s.mu.Unlock()
	return s.ObjectStore.ReadRange(ctx, path, off, n)
}

func (s *pathStore) indexReads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.reads {
		if strings.Contains(p, "/_indices/") {
			out = append(out, p)
		}
	}
	s.reads = nil
	return out
}

// Every query loads its own Table, but the snapshot's indexes are opened once: a second
// point lookup reads only the BTree page it needs, not page_lookup again.
func TestIndexOpenedOncePerSnapshot(t *testing.T) {
	dir, _ := indexTables(t)
	ctx := context.Background()
	inner, err := blobstore.Open(ctx, dir)
	require.NoError(t, err)
	store := &pathStore{ObjectStore: inner}
	cat := lancecat.New(store)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	_, got := query(ctx, t, cat, mem, "SELECT id FROM big WHERE id = 77")
	require.Equal(t, []int64{77}, got)
	first := store.indexReads()
	require.True(t, slices.ContainsFunc(first, func(p string) bool { return strings.HasSuffix(p, "/page_lookup.lance") }), "%v", first)

	_, got = query(ctx, t, cat, mem, "SELECT id FROM big WHERE id = 999000")
	require.Equal(t, []int64{999000}, got)
	second := store.indexReads()
	require.NotEmpty(t, second, "the lookup reads a page of page_data")
	for _, p := range second {
		require.True(t, strings.HasSuffix(p, "/page_data.lance"), "read %s again", p)
	}
}

// A search another query started and cancelled is searched again by a caller whose own
// context is live; a cancelled caller and other failures get the error.
func TestIndexSelectRowsAfterOthersCancel(t *testing.T) {
	dir, _ := indexTables(t)
	ctx := context.Background()
	tbl, err := openCatalog(t, dir).LoadTable(ctx, "ix", catalog.VersionRef{})
	require.NoError(t, err)
	ix := tbl.(catalog.Indexed)
	infos, err := ix.Indexes(ctx)
	require.NoError(t, err)
	l := slices.IndexFunc(infos, func(i catalog.IndexInfo) bool { return i.Name == "l_idx" })
	e := &catalog.IndexExpr{Kind: catalog.IndexPred, Column: infos[l].Column, Op: catalog.IndexArrayHasAny,
		Values: []scalar.Scalar{scalar.NewStringScalar("a1")}}
	lt := tbl.(*lancecat.Table)

	lt.MemoizeFailedSearch(e, fmt.Errorf("read index: %w", context.Canceled))
	sel, err := ix.SelectRows(ctx, e)
	require.NoError(t, err, "another query's cancellation is not this caller's")
	require.NotNil(t, sel)

	lt.MemoizeFailedSearch(e, context.Canceled)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = ix.SelectRows(cancelled, e)
	require.ErrorIs(t, err, context.Canceled)

	boom := errors.New("corrupt page")
	lt.MemoizeFailedSearch(e, boom)
	_, err = ix.SelectRows(ctx, e)
	require.ErrorIs(t, err, boom)
}
