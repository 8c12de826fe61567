package lancecat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner"
)

// ddlIndexes are the indexes TestIndexDDLAgainstPylance creates with SQL, both orders of
// USING included.
var ddlIndexes = []struct {
	sql, name, typ string
	field          int
}{
	{"CREATE INDEX id_idx ON t (id)", "id_idx", "BTree", 0},
	{"CREATE INDEX cat_idx ON t USING BITMAP (cat)", "cat_idx", "Bitmap", 1},
	{"CREATE INDEX tags_idx ON t (tags) USING LABEL_LIST", "tags_idx", "LabelList", 2},
	{"CREATE INDEX f_idx ON t (f) USING ZONEMAP", "f_idx", "ZoneMap", 4},
	{"CREATE INDEX IF NOT EXISTS k_idx ON t (K) USING bloomfilter", "k_idx", "BloomFilter", 5},
}

// ddlFilters are answered by pylance with flightd's indexes, and by a pylance scan.
var ddlFilters = []string{
	"id = 1500", "id >= 2990 AND id < 3010", "id IN (4, 3500, 4999)", "cat = 'c03'", "cat IS NULL",
	"array_has_any(tags, ['a1'])", "f > 700.0", "k = 7",
}

// ddlOracle is what index_ddl.py check prints.
type ddlOracle struct {
	Version int
	Indices []struct {
		Name        string
		Type        string
		Fields      []string
		FragmentIDs []uint32 `json:"fragment_ids"`
	}
	Describe []struct {
		Name           string
		TypeURL        string `json:"type_url"`
		NumSegments    int    `json:"num_segments"`
		NumRowsIndexed int    `json:"num_rows_indexed"`
	}
	Results map[string]struct {
		Indexed, Scan []int64
		Plan          string
	}
}

// ddlPy runs testdata/index_ddl.py.
func ddlPy(t *testing.T, stdin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testutil.Python(t), append([]string{"testdata/index_ddl.py"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		require.NoError(t, err, string(ee.Stderr))
	}
	require.NoError(t, err)
	return out
}

// pyCheck asks pylance about t.lance's indexes and ddlFilters.
func pyCheck(t *testing.T, dir string) ddlOracle {
	t.Helper()
	in, err := json.Marshal(map[string][]string{"filters": ddlFilters})
	require.NoError(t, err)
	var o ddlOracle
	require.NoError(t, json.Unmarshal(ddlPy(t, string(in), "check", dir), &o))
	return o
}

// runSQL plans and runs one statement as flightd's server does and returns its single int64
// (a write's count, or count(*)).
func runSQL(ctx context.Context, t *testing.T, cat catalog.Catalog, mem memory.Allocator, sql string) (int64, error) {
	t.Helper()
	p := planner.New(cat)
	prep, err := p.PlanSQL(ctx, sql)
	if err != nil {
		return 0, err
	}
	require.True(t, prep.IsWrite, sql)
	op, err := build.Build(prep.Write, flexec.Env{Mem: mem, BatchSize: 1000, Parallelism: 2})
	require.NoError(t, err)
	batches, err := flexec.Collect(ctx, op)
	defer release(batches)
	if err != nil {
		return 0, err
	}
	require.Len(t, batches, 1)
	return batches[0].Column(0).(*array.Int64).Value(0), nil
}

// indexNames lists the oracle's index names, one per segment, sorted.
func (o ddlOracle) indexNames() []string {
	var out []string
	for _, ix := range o.Indices {
		out = append(out, ix.Name)
	}
	slices.Sort(out)
	return out
}

// requirePylanceUses checks pylance answers every filter with an index like a scan.
func requirePylanceUses(t *testing.T, o ddlOracle, skip ...string) {
	t.Helper()
	for _, f := range ddlFilters {
		r := o.Results[f]
		require.NotEmpty(t, r.Scan, f)
		require.Equal(t, r.Scan, r.Indexed, f)
		if !slices.Contains(skip, f) {
			require.Contains(t, r.Plan, "ScalarIndexQuery", "pylance does not use flightd's index for %q", f)
		}
	}
}

// TestIndexDDLAgainstPylance: CREATE INDEX of every type, ALTER INDEX OPTIMIZE after an
// append and DROP INDEX, each checked with pylance's list_indices/describe_indices and its
// filtered reads (which must use the indexes and agree with scans) and flightd's EXPLAIN.
func TestIndexDDLAgainstPylance(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2.0", "2.2"} {
		t.Run("data "+v, func(t *testing.T) {
			t.Parallel()
			testIndexDDL(t, v)
		})
	}
}

func testIndexDDL(t *testing.T, dataVersion string) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	ddlPy(t, "", "make", dir, dataVersion)
	cat := openCatalog(t, dir)
	const live = 2700 // 3000 rows, id % 10 = 3 deleted

	for _, ix := range ddlIndexes {
		n, err := runSQL(ctx, t, cat, mem, ix.sql)
		require.NoError(t, err, ix.sql)
		require.EqualValues(t, live, n, ix.sql)
	}
	o := pyCheck(t, dir)
	require.Equal(t, 2+len(ddlIndexes), o.Version, "one commit per CREATE INDEX")
	require.Len(t, o.Indices, len(ddlIndexes))
	for _, want := range ddlIndexes {
		i := slices.IndexFunc(o.Indices, func(g struct {
			Name        string
			Type        string
			Fields      []string
			FragmentIDs []uint32 `json:"fragment_ids"`
		}) bool {
			return g.Name == want.name
		})
		require.GreaterOrEqual(t, i, 0, want.name)
		require.Equal(t, want.typ, o.Indices[i].Type)
		require.Equal(t, []uint32{0, 1, 2}, o.Indices[i].FragmentIDs)
	}
	for _, d := range o.Describe {
		require.Equal(t, 1, d.NumSegments, d.Name)
		require.Equal(t, live, d.NumRowsIndexed, d.Name)
	}
	requirePylanceUses(t, o)

	// Errors and no-ops.
	_, err := runSQL(ctx, t, cat, mem, "CREATE INDEX id_idx ON t (f)")
	require.ErrorIs(t, err, catalog.ErrIndexExists)
	n, err := runSQL(ctx, t, cat, mem, "CREATE INDEX IF NOT EXISTS id_idx ON t (f)")
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = runSQL(ctx, t, cat, mem, "CREATE INDEX x ON t (nope)")
	require.ErrorContains(t, err, `does not have a column named "nope"`)
	_, err = runSQL(ctx, t, cat, mem, "CREATE INDEX x ON t (id) USING IVF_PQ")
	require.ErrorContains(t, err, "index type IVF_PQ")
	_, err = runSQL(ctx, t, cat, mem, "CREATE INDEX x ON t (id) USING LABEL_LIST")
	require.ErrorContains(t, err, "want a list column")
	_, err = runSQL(ctx, t, cat, mem, "CREATE INDEX x ON t (tags) USING BTREE")
	require.Error(t, err)
	_, err = runSQL(ctx, t, cat, mem, "ALTER INDEX nope ON t OPTIMIZE")
	require.ErrorIs(t, err, catalog.ErrNoSuchIndex)

	// flightd's planner uses the new index.
	text, err := planner.New(cat).Explain(ctx, "SELECT id FROM t WHERE id = 1500")
	require.NoError(t, err)
	require.Contains(t, text, "index: id_idx (BTree) on id")

	// Appends, then incremental maintenance: a delta segment over the new fragments.
	ddlPy(t, "", "append", dir)
	for _, ix := range ddlIndexes {
		n, err = runSQL(ctx, t, cat, mem, "ALTER INDEX "+ix.name+" OPTIMIZE")
		require.NoError(t, err)
		require.EqualValues(t, 2000, n, ix.name)
	}
	n, err = runSQL(ctx, t, cat, mem, "ALTER INDEX id_idx ON t OPTIMIZE")
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to index: no commit")
	o = pyCheck(t, dir)
	require.Equal(t, 2+2*len(ddlIndexes)+1, o.Version, "one commit per OPTIMIZE with work to do")
	segs := map[string][][]uint32{}
	for _, ix := range o.Indices {
		segs[ix.Name] = append(segs[ix.Name], ix.FragmentIDs)
	}
	for _, ix := range ddlIndexes {
		require.ElementsMatch(t, [][]uint32{{0, 1, 2}, {3, 4}}, segs[ix.name], ix.name)
	}
	for _, d := range o.Describe {
		require.Equal(t, 2, d.NumSegments, d.Name)
		require.Equal(t, live+2000, d.NumRowsIndexed, d.Name)
	}
	requirePylanceUses(t, o)
	require.Equal(t, []int64{4, 3500, 4999}, o.Results["id IN (4, 3500, 4999)"].Indexed)
	text, err = planner.New(cat).Explain(ctx, "SELECT id FROM t WHERE id = 4500")
	require.NoError(t, err)
	require.Contains(t, text, "index: id_idx (BTree) on id, fragments 1 of 5")
	checkFlightdAnswers(ctx, t, cat, mem, o)

	// DROP INDEX, found by name alone, then with ON; pylance and flightd no longer see it.
	n, err = runSQL(ctx, t, cat, mem, "DROP INDEX cat_idx")
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = runSQL(ctx, t, cat, mem, "DROP INDEX id_idx ON t")
	require.NoError(t, err)
	_, err = runSQL(ctx, t, cat, mem, "DROP INDEX cat_idx")
	require.ErrorIs(t, err, catalog.ErrNoSuchIndex)
	n, err = runSQL(ctx, t, cat, mem, "DROP INDEX IF EXISTS cat_idx")
	require.NoError(t, err)
	require.Zero(t, n)
	o = pyCheck(t, dir)
	require.Equal(t, []string{"f_idx", "f_idx", "k_idx", "k_idx", "tags_idx", "tags_idx"}, o.indexNames(), "two segments each")
	for _, f := range ddlFilters {
		require.Equal(t, o.Results[f].Scan, o.Results[f].Indexed, f)
	}
	require.NotContains(t, o.Results["id = 1500"].Plan, "ScalarIndexQuery")
	text, err = planner.New(cat).Explain(ctx, "SELECT id FROM t WHERE id = 1500")
	require.NoError(t, err)
	require.NotContains(t, text, "id_idx")

	// The same name on two tables makes DROP without ON ambiguous.
	_, err = runSQL(ctx, t, cat, mem, "CREATE INDEX k_idx ON u (k)")
	require.NoError(t, err)
	_, err = runSQL(ctx, t, cat, mem, "DROP INDEX k_idx")
	require.ErrorContains(t, err, `index name "k_idx" is ambiguous: tables t, u`)
	_, err = runSQL(ctx, t, cat, mem, "DROP INDEX k_idx ON u")
	require.NoError(t, err)
}

// checkFlightdAnswers checks flightd's filtered counts (with its indexes, the delta
// segments included) equal pylance's scans.
func checkFlightdAnswers(ctx context.Context, t *testing.T, cat catalog.Catalog, mem memory.Allocator, o ddlOracle) {
	t.Helper()
	p := planner.New(cat)
	for _, f := range ddlFilters {
		if strings.HasPrefix(f, "array_has") {
			continue // flightd's SQL has no list functions yet
		}
		prep, err := p.PlanSQL(ctx, "SELECT count(*) FROM t WHERE "+f)
		require.NoError(t, err, f)
		node, err := p.Logical(ctx, prep.Substrait)
		require.NoError(t, err)
		op, err := build.Build(node, flexec.Env{Mem: mem, BatchSize: 1000, Parallelism: 2})
		require.NoError(t, err)
		batches, err := flexec.Collect(ctx, op)
		require.NoError(t, err)
		got := batches[0].Column(0).(*array.Int64).Value(0)
		release(batches)
		require.EqualValues(t, len(o.Results[f].Scan), got, fmt.Sprintf("flightd count for %q", f))
	}
}

var _ catalog.Indexer = (*lancecat.Catalog)(nil)
