package index_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// ourIndices are the indices TestWriteAgainstPylance builds with our writer: the same
// columns and names as pylance_oracle.py's, so predCases apply to them.
var ourIndices = []struct {
	name, column string
	typ          index.Type
}{
	{"i_btree", "i", index.TypeBTree},
	{"u_btree", "u", index.TypeBTree},
	{"s_bitmap", "s", index.TypeBitmap},
	{"l_label_list", "l", index.TypeLabelList},
	{"f_zonemap", "f", index.TypeZoneMap},
	{"k_bloomfilter", "k", index.TypeBloomFilter},
	{"name_bloomfilter", "name", index.TypeBloomFilter},
}

type commitEntry struct {
	UUID           string   `json:"uuid"`
	Name           string   `json:"name"`
	Fields         []int32  `json:"fields"`
	DatasetVersion uint64   `json:"dataset_version"`
	FragmentIDs    []uint32 `json:"fragment_ids"`
	IndexVersion   int32    `json:"index_version"`
	TypeURL        string   `json:"type_url"`
	Files          []struct {
		Path string `json:"path"`
		Size uint64 `json:"size"`
	} `json:"files"`
}

// TestWriteAgainstPylance builds every index type with our writer over a pylance dataset
// (several fragments, an uncovered appended fragment, deleted rows, nulls), checks our
// reader answers predCases like a pylance scan, then commits the segments with pylance's
// CreateIndex and checks pylance lists them and answers the filters with them.
func TestWriteAgainstPylance(t *testing.T) {
	t.Parallel()
	for _, v := range []file.Version{file.V2_0, file.V2_2} {
		t.Run(fmt.Sprintf("file version %d", v), func(t *testing.T) {
			t.Parallel()
			testWriteAgainstPylance(t, v)
		})
	}
}

func testWriteAgainstPylance(t *testing.T, version file.Version) {
	dir := plainCopy(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ds := table.OpenDataset(dirStore{Root: dir}, "")
	m, err := ds.Latest(ctx)
	require.NoError(t, err)

	truth := sharedTruth(t)
	live := index.RowSetOf(truth.Live...)

	var entries []commitEntry
	segs := map[string]index.Index{}
	for _, oi := range ourIndices {
		fid := fieldID(t, m, oi.column)
		b, md, err := index.Build(ctx, ds, m, oi.name, fid, oi.typ, &index.WriteOptions{FileVersion: version}, mem)
		require.NoError(t, err, oi.name)
		require.Equal(t, []uint32{0, 1, 2, 3}, b.Fragments, "the appended fragment is covered too")
		require.Equal(t, oi.name, md.GetName())
		require.Equal(t, m.Version(), md.GetDatasetVersion())
		require.Len(t, md.GetUuid().GetUuid(), 16)
		require.Equal(t, index.TypeFromURL(md.GetIndexDetails().GetTypeUrl()), oi.typ)
		require.NotEmpty(t, md.GetFiles())
		ix, err := openBuilt(ctx, ds, m, md, mem)
		require.NoError(t, err, oi.name)
		segs[oi.name] = ix
		entries = append(entries, toEntry(b, md))
	}

	checkOurSearch(t, segs, truth.Results, live)
	checkPylanceUsesIndices(t, dir, entries)
}

// checkOurSearch checks our reader over our files answers predCases like pylance's scan.
func checkOurSearch(t *testing.T, segs map[string]index.Index, truth map[string][]uint64, live *index.RowSet) {
	ctx := context.Background()
	for _, c := range predCases {
		t.Run("ours/"+c.sql, func(t *testing.T) {
			res, err := segs[c.index].Search(ctx, c.q)
			require.NoError(t, err)
			if c.index == "l_label_list" && c.q.Op == index.OpIsNull {
				// Our label lists are index_version 0: no null-list buffer.
				require.Equal(t, index.NotAnswerable, res.Kind)
				require.Contains(t, res.Reason, "null-list buffer")
				return
			}
			require.Equal(t, c.kind, res.Kind, res.Reason)
			if c.kind == index.NotAnswerable {
				return
			}
			want := coveredRows(truth[c.sql], res.Covered)
			if c.kind == index.Exact {
				res.Rows.Intersect(live)
				require.Equal(t, want, coveredRows(res.Rows.Addrs(), res.Covered))
				return
			}
			for _, a := range want {
				require.True(t, res.MayContain(a), "row %d:%d excluded", a>>32, a&0xFFFFFFFF)
			}
		})
	}

}

// checkPylanceUsesIndices commits our segments with pylance's CreateIndex and checks pylance
// lists them and answers every answerable predCase with them like a full scan.
func checkPylanceUsesIndices(t *testing.T, dir string, entries []commitEntry) {
	var got struct {
		Describe []struct {
			Name, Type string
		} `json:"describe"`
		Results map[string]struct {
			Indexed []uint64 `json:"indexed"`
			Scan    []uint64 `json:"scan"`
			Plan    string   `json:"plan"`
		} `json:"results"`
	}
	var pySQL []string
	for _, c := range predCases {
		if c.kind != index.NotAnswerable {
			pySQL = append(pySQL, c.sql)
		}
	}
	out := oracle(t, "commit_indices", dir, map[string]any{"indices": entries, "filters": pySQL})
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got.Describe, len(ourIndices))
	for _, oi := range ourIndices {
		i := slices.IndexFunc(got.Describe, func(d struct{ Name, Type string }) bool { return d.Name == oi.name })
		require.GreaterOrEqual(t, i, 0, oi.name)
		require.Equal(t, oi.typ.String(), got.Describe[i].Type)
	}
	for _, sql := range pySQL {
		r := got.Results[sql]
		require.Equal(t, r.Scan, r.Indexed, "pylance with our index answers %q like a scan", sql)
	}
	for _, sql := range pySQL {
		if sql != "l IS NULL" { // our label lists have no null-list buffer (index_version 0)
			require.Contains(t, got.Results[sql].Plan, "ScalarIndexQuery", "pylance does not use our index for %q", sql)
		}
	}
}

// fieldID returns the id of a top-level column.
func fieldID(t *testing.T, m *table.Manifest, name string) int32 {
	t.Helper()
	for _, f := range m.Fields() {
		if f.GetName() == name && f.GetParentId() == -1 {
			return f.GetId()
		}
	}
	require.FailNow(t, "no column "+name)
	return 0
}

// openBuilt opens a segment from the metadata our writer returned.
func openBuilt(ctx context.Context, ds *table.Dataset, m *table.Manifest, md *lancepb.IndexMetadata,
	mem memory.Allocator) (index.Index, error) {
	m2 := *m
	m2.Indices = []*lancepb.IndexMetadata{md}
	infos, err := index.List(ctx, ds, &m2)
	if err != nil {
		return nil, err
	}
	return index.Open(ctx, ds, m, infos[0], mem)
}

func toEntry(b *index.Built, md *lancepb.IndexMetadata) commitEntry {
	e := commitEntry{UUID: b.UUID, Name: md.GetName(), Fields: md.GetFields(), DatasetVersion: md.GetDatasetVersion(),
		FragmentIDs: b.Fragments, IndexVersion: md.GetIndexVersion(), TypeURL: md.GetIndexDetails().GetTypeUrl()}
	for _, f := range b.Files {
		e.Files = append(e.Files, struct {
			Path string `json:"path"`
			Size uint64 `json:"size"`
		}{f.Path, f.SizeBytes})
	}
	return e
}
