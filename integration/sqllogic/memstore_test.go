package sqllogic

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/slt"
)

func intBatch(mem memory.Allocator, vals ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{arr}, int64(len(vals)))
}

// readAll scans every morsel of a table and renders its rows.
func readAll(t *testing.T, tbl catalog.Table, mem memory.Allocator) []string {
	t.Helper()
	ctx := context.Background()
	req := catalog.ScanRequest{Columns: []int{0}, Limit: -1}
	ms, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	var out []string
	for _, m := range ms {
		rdr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		for {
			b, err := rdr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			out = append(out, slt.ResultLines(slt.RenderBatches([]arrow.RecordBatch{b}), slt.NoSort)...)
			b.Release()
		}
		require.NoError(t, rdr.Close())
	}
	return out
}

func TestMemStoreVersions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	s := NewMemStore(2)
	defer s.Release()

	apply := func(kind string, version uint64, vals ...int64) error {
		b := intBatch(mem, vals...)
		defer b.Release()
		return s.Apply(ctx, Change{Table: "t", Kind: kind, Version: version, Schema: b.Schema(), Batches: []arrow.RecordBatch{b}})
	}
	require.NoError(t, apply(ChangeCreate, 1, 1, 2, 3))
	require.NoError(t, apply(ChangeAppend, 2, 4))
	require.NoError(t, apply(ChangeOverwrite, 3, 9))
	require.ErrorContains(t, apply(ChangeAppend, 5, 0), "version 5 follows version 3")
	require.ErrorContains(t, apply("merge", 4, 0), `unknown change "merge"`)

	names, err := s.ListTables(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"t"}, names)

	cases := []struct {
		at      catalog.VersionRef
		version uint64
		rows    []string
		frags   int
	}{
		{catalog.VersionRef{}, 3, []string{"9"}, 1},
		{catalog.VersionRef{Version: 1}, 1, []string{"1", "2", "3"}, 1},
		{catalog.VersionRef{Version: 2}, 2, []string{"1", "2", "3", "4"}, 2},
		{catalog.VersionRef{Version: 3}, 3, []string{"9"}, 1},
	}
	for _, c := range cases {
		t.Run(c.at.String(), func(t *testing.T) {
			tbl, err := s.LoadTable(ctx, "t", c.at)
			require.NoError(t, err)
			require.Equal(t, c.version, tbl.Version())
			require.Equal(t, c.frags, tbl.Stats().Fragments, "an append adds a fragment")
			require.Equal(t, c.rows, readAll(t, tbl, mem))
		})
	}

	_, err = s.LoadTable(ctx, "t", catalog.VersionRef{Version: 4})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
	_, err = s.LoadTable(ctx, "t", catalog.VersionRef{Tag: "v1"})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
	require.ErrorContains(t, err, "not supported yet")
	_, err = s.LoadTable(ctx, "nope", catalog.VersionRef{})
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)

	require.NoError(t, s.Apply(ctx, Change{Table: "t", Kind: ChangeDrop}))
	_, err = s.LoadTable(ctx, "t", catalog.VersionRef{})
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)
	require.ErrorContains(t, apply(ChangeAppend, 1, 0), "append to t: no such table")
	require.NoError(t, apply(ChangeCreate, 1, 5), "a dropped table starts again at version 1")
}

func TestIsSetup(t *testing.T) {
	cases := map[string]bool{
		"CREATE TABLE t AS SELECT 1":  true,
		"  insert into t values (1)":  true,
		"UPDATE t SET a = 1":          true,
		"DELETE FROM t":               true,
		"DROP TABLE t":                true,
		"ALTER TABLE t ADD COLUMN c":  true,
		"SELECT * FROM t":             false,
		"WITH x AS (SELECT 1) SELECT": false,
		"CREATED_AT":                  false,
	}
	for sql, want := range cases {
		require.Equal(t, want, IsSetup(sql), sql)
	}
}
