package lancecat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/table"
)

// zmSchema has every kind of column the automatic zone maps cover, and one (s) they skip.
var zmSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	{Name: "u", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "s", Type: arrow.BinaryTypes.String},
}, nil)

// zmBatch is rows id = start..start+n-1 with the other columns derived from id (f null when
// id % 7 == 0).
func zmBatch(mem memory.Allocator, sc *arrow.Schema, start, n int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for k := start; k < start+n; k++ {
		b.Field(0).(*array.Int64Builder).Append(k)
		if k%7 == 0 {
			b.Field(1).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(float64(k) / 4)
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(19000 + k/100))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + k*1_000_000))
		b.Field(4).(*array.Uint16Builder).Append(uint16(k % 60000))
		b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("s%d", k%10))
	}
	return b.NewRecordBatch()
}

// zmIndexes lists the latest version's indexes as name → covered fragments, and the
// number of segments per name.
func zmIndexes(t *testing.T, c *lancecat.Catalog, name string) (*table.Manifest, map[string][]uint32, map[string]int) {
	t.Helper()
	ctx := context.Background()
	ds, err := c.Dataset(name)
	require.NoError(t, err)
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	infos, err := index.List(ctx, ds, m)
	require.NoError(t, err)
	covered, segs := map[string][]uint32{}, map[string]int{}
	for _, in := range infos {
		covered[in.Name] = in.Covered()
		segs[in.Name] = len(in.Segments)
		if strings.HasSuffix(in.Name, lancecat.AutoZoneMapSuffix) {
			require.Equal(t, index.TypeZoneMap, in.Type, in.Name)
		}
	}
	return m, covered, segs
}

// fragmentIDs are the ids of m's fragments.
func fragmentIDs(m *table.Manifest) []uint32 {
	var out []uint32
	for _, f := range m.Fragments() {
		out = append(out, uint32(f.GetId()))
	}
	return out
}

// zmPylance is what testdata/zonemap_auto.py inspect answers.
type zmPylance struct {
	Indices []struct {
		Name      string   `json:"name"`
		Type      string   `json:"type"`
		Fields    []string `json:"fields"`
		Fragments []uint32 `json:"fragments"`
	} `json:"indices"`
	Fragments   []uint32           `json:"fragments"`
	Plans       map[string]string  `json:"plans"`
	Rows        map[string][]int64 `json:"rows"`
	RowsNoIndex map[string][]int64 `json:"rows_noindex"`
}

// zmPy runs testdata/zonemap_auto.py.
func zmPy(t *testing.T, stdin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testutil.Python(t), append([]string{"testdata/zonemap_auto.py"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	return out
}

// inspectWithPylance asks pylance about the indexes of uri and about filters.
func inspectWithPylance(t *testing.T, uri string, filters ...string) zmPylance {
	t.Helper()
	in, err := json.Marshal(map[string][]string{"filters": filters})
	require.NoError(t, err)
	var out zmPylance
	require.NoError(t, json.Unmarshal(zmPy(t, string(in), "inspect", uri), &out))
	return out
}

// zmCase is a filter, the zone map flightd's EXPLAIN must show for it, and the ids it
// selects.
type zmCase struct {
	cond, explain string
	want          []int64
}

func idRange(lo, hi int64) []int64 {
	var out []int64
	for k := lo; k <= hi; k++ {
		out = append(out, k)
	}
	return out
}

// Create and append with automatic zone maps: each write is followed by one CreateIndex
// commit whose segment covers the new fragments; pylance lists the indexes and uses them,
// and flightd prunes fragments with them (EXPLAIN) with the same results.
func TestAutoZoneMapsOnWrite(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c := openCatalog(t, dir)

	rec := zmBatch(mem, zmSchema, 0, 3000)
	v, err := c.CreateTableWith(ctx, "z", zmSchema, []arrow.RecordBatch{rec}, &table.CreateOptions{
		Config: map[string]string{lancecat.AutoZoneMapKey: "true"},
		Write:  table.WriteOptions{MaxRowsPerFile: 1000},
	})
	rec.Release()
	require.NoError(t, err)
	require.Equal(t, uint64(2), v, "version 1 is the data, version 2 the zone maps")
	m, covered, segs := zmIndexes(t, c, "z")
	require.True(t, lancecat.AutoZoneMaps(m))
	require.Equal(t, map[string][]uint32{"id_zonemap": {0, 1, 2}, "f_zonemap": {0, 1, 2}, "d_zonemap": {0, 1, 2},
		"ts_zonemap": {0, 1, 2}, "u_zonemap": {0, 1, 2}}, covered, "every numeric and date column, not s")
	require.Equal(t, 1, segs["id_zonemap"])

	rec = zmBatch(mem, zmSchema, 3000, 1500)
	v, err = c.Append(ctx, "z", []arrow.RecordBatch{rec})
	rec.Release()
	require.NoError(t, err)
	require.Equal(t, uint64(4), v)
	m, covered, segs = zmIndexes(t, c, "z")
	require.Equal(t, []uint32{0, 1, 2, 3}, fragmentIDs(m))
	for name, frags := range covered {
		require.Equal(t, []uint32{0, 1, 2, 3}, frags, name)
		require.Equal(t, 2, segs[name], "a delta segment for the appended fragment: %s", name)
	}

	cases := []zmCase{
		{"id BETWEEN 3200 AND 3210", "index: id_zonemap (ZoneMap) on id, fragments 1 of 4", idRange(3200, 3210)},
		{"id < 5", "index: id_zonemap (ZoneMap) on id, fragments 1 of 4", idRange(0, 4)},
		{"ts >= TIMESTAMP '2023-11-14 23:26:40'", "index: ts_zonemap (ZoneMap) on ts, fragments 1 of 4", idRange(4400, 4499)},
		{"u = 1234", "index: u_zonemap (ZoneMap) on u, fragments 1 of 4", []int64{1234}},
	}
	for _, tc := range cases {
		t.Run(tc.cond, func(t *testing.T) {
			node, got := query(ctx, t, c, mem, "SELECT id FROM z WHERE "+tc.cond)
			slices.Sort(got)
			require.Equal(t, tc.want, got)
			scan := findScan(node)
			require.NotNil(t, scan.Index, "flightd uses the zone map")
			require.Contains(t, scan.Index.Explain, tc.explain)
		})
	}

	py := inspectWithPylance(t, filepath.Join(dir, "z.lance"), "id BETWEEN 3200 AND 3210", "id < 5", "u = 1234")
	require.Equal(t, []uint32{0, 1, 2, 3}, py.Fragments)
	seen := map[string][]uint32{}
	for _, ix := range py.Indices {
		require.Equal(t, "ZoneMap", ix.Type, ix.Name)
		require.Equal(t, []string{strings.TrimSuffix(ix.Name, lancecat.AutoZoneMapSuffix)}, ix.Fields)
		seen[ix.Name] = append(seen[ix.Name], ix.Fragments...)
	}
	require.Equal(t, []uint32{0, 1, 2, 3}, seen["id_zonemap"])
	require.Len(t, seen, 5)
	require.Contains(t, py.Plans["id < 5"], "ScalarIndexQuery: query=[id < 5]@id_zonemap(ZoneMap)")
	require.Contains(t, py.Plans["u = 1234"], "@u_zonemap(ZoneMap)")
	require.Equal(t, idRange(3200, 3210), py.Rows["id BETWEEN 3200 AND 3210"])
	for cond, rows := range py.Rows {
		require.Equal(t, py.RowsNoIndex[cond], rows, cond)
	}
}

// Without the config key no index is built; the Arrow schema's metadata switches it on at
// creation (CREATE TABLE AS, bulk ingest); tables with few columns and no rows are fine.
func TestAutoZoneMapsSwitch(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := openCatalog(t, t.TempDir())
	md := arrow.NewMetadata([]string{lancecat.AutoZoneMapKey}, []string{"TRUE"})
	withMD := arrow.NewSchema(zmSchema.Fields(), &md)
	cases := []struct {
		name       string
		sc         *arrow.Schema
		rows       int64
		wantCreate uint64 // version after CreateTable
		wantIdx    int
	}{
		{"off", zmSchema, 100, 1, 0},
		{"metadata", withMD, 100, 2, 5},
		{"empty", withMD, 0, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var batches []arrow.RecordBatch
			if tc.rows > 0 {
				rec := zmBatch(mem, tc.sc, 0, tc.rows)
				defer rec.Release()
				batches = append(batches, rec)
			}
			v, err := c.CreateTable(ctx, tc.name, tc.sc, batches, catalog.CreateNew)
			require.NoError(t, err)
			require.Equal(t, tc.wantCreate, v)
			_, covered, _ := zmIndexes(t, c, tc.name)
			require.Len(t, covered, tc.wantIdx)

			rec := zmBatch(mem, zmSchema, 100, 10)
			defer rec.Release()
			v2, err := c.Append(ctx, tc.name, []arrow.RecordBatch{rec})
			require.NoError(t, err)
			if tc.wantIdx == 0 && tc.name == "off" {
				require.Equal(t, v+1, v2, "no zone map commit when switched off")
				return
			}
			require.Equal(t, v+2, v2)
			m, covered, _ := zmIndexes(t, c, tc.name)
			require.Len(t, covered, 5)
			require.Equal(t, fragmentIDs(m), covered["d_zonemap"])
		})
	}
}

// Segments stay bounded: after AutoZoneMapMaxSegments deltas the next write rebuilds one
// segment over every fragment; fragments replaced by a compaction are covered again by the
// next write and segments left with no live fragment are removed.
func TestAutoZoneMapsSegmentsBounded(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := openCatalog(t, t.TempDir())
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(start int64) arrow.RecordBatch {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for k := start; k < start+10; k++ {
			b.Append(k)
		}
		arr := b.NewArray()
		defer arr.Release()
		return array.NewRecordBatch(sc, []arrow.Array{arr}, 10)
	}
	rec := batch(0)
	_, err := c.CreateTableWith(ctx, "b", sc, []arrow.RecordBatch{rec},
		&table.CreateOptions{Config: map[string]string{lancecat.AutoZoneMapKey: "true"}})
	rec.Release()
	require.NoError(t, err)
	maxSeen := 0
	for i := 1; i <= lancecat.AutoZoneMapMaxSegments; i++ {
		rec := batch(int64(i) * 10)
		_, err := c.Append(ctx, "b", []arrow.RecordBatch{rec})
		rec.Release()
		require.NoError(t, err)
		m, covered, segs := zmIndexes(t, c, "b")
		require.Equal(t, fragmentIDs(m), covered["k_zonemap"], "append %d", i)
		maxSeen = max(maxSeen, segs["k_zonemap"])
		if i < lancecat.AutoZoneMapMaxSegments {
			require.Equal(t, i+1, segs["k_zonemap"], "append %d", i)
		}
	}
	require.Equal(t, lancecat.AutoZoneMapMaxSegments, maxSeen)
	_, _, segs := zmIndexes(t, c, "b")
	require.Equal(t, 1, segs["k_zonemap"], "rebuilt as one segment")

	_, _, err = c.Compact(ctx, "b", nil)
	require.NoError(t, err)
	v, err := c.MaintainZoneMaps(ctx, "b")
	require.NoError(t, err)
	m, covered, segs := zmIndexes(t, c, "b")
	require.Equal(t, v, m.Version())
	require.Equal(t, fragmentIDs(m), covered["k_zonemap"], "the compacted fragments are covered")
	require.Equal(t, 1, segs["k_zonemap"], "the segment of the replaced fragments is removed")

	_, got := query(ctx, t, c, mem, "SELECT k FROM b WHERE k = 42")
	require.Equal(t, []int64{42}, got)
}

// A pylance table with a BTREE on id and the switch set by pylance's update_config: the next
// append through flightd builds zone maps over every fragment (pylance's and ours) for f but
// leaves id to the user's BTREE; pylance lists and uses them.
func TestAutoZoneMapsOnPylanceTable(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	uri := filepath.Join(dir, "p.lance")
	zmPy(t, "", "make", uri)
	c := openCatalog(t, dir)
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for k := int64(3000); k < 3500; k++ {
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.Float64Builder).Append(float64(k) / 4)
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("s%d", k%10))
	}
	rec := b.NewRecordBatch()
	b.Release()
	start := time.Now()
	v, err := c.Append(ctx, "p", []arrow.RecordBatch{rec})
	rec.Release()
	require.NoError(t, err)
	t.Logf("append + zone maps in %s", time.Since(start))
	m, covered, _ := zmIndexes(t, c, "p")
	require.Equal(t, v, m.Version())
	require.Equal(t, map[string][]uint32{"id_idx": {0, 1, 2}, "f_zonemap": {0, 1, 2, 3}}, covered)

	node, got := query(ctx, t, c, mem, "SELECT id FROM p WHERE f >= 850")
	require.Equal(t, idRange(3400, 3499), got)
	require.Contains(t, findScan(node).Index.Explain, "index: f_zonemap (ZoneMap) on f, fragments 1 of 4")

	py := inspectWithPylance(t, uri, "f >= 850", "f < 1")
	require.Contains(t, py.Plans["f >= 850"], "@f_zonemap(ZoneMap)")
	require.Equal(t, idRange(3400, 3499), py.Rows["f >= 850"])
	require.Equal(t, idRange(0, 3), py.Rows["f < 1"])
	names := map[string]string{}
	for _, ix := range py.Indices {
		names[ix.Name] = ix.Type
	}
	require.Equal(t, map[string]string{"id_idx": "BTree", "f_zonemap": "ZoneMap"}, names)
}
