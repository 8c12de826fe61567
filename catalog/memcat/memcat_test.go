package memcat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
)

var sch = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func batch(mem memory.Allocator, from, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(string(rune('a' + i%26)))
	}
	return b.NewRecordBatch()
}

func TestCatalog(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	cat := memcat.New(memcat.WithMorselRows(4))
	defer cat.Release()
	b1, b2 := batch(mem, 0, 10), batch(mem, 10, 3)
	require.NoError(t, cat.AddTable("t", sch, b1, b2))
	require.NoError(t, cat.AddTable("a", sch))
	b1.Release()
	b2.Release()

	names, err := cat.ListTables(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "t"}, names)

	_, err = cat.LoadTable(ctx, "nope", catalog.VersionRef{})
	require.ErrorIs(t, err, catalog.ErrNoSuchTable)
	_, err = cat.LoadTable(ctx, "t", catalog.VersionRef{Version: 2})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion)

	tbl, err := cat.LoadTable(ctx, "t", catalog.VersionRef{Version: 1})
	require.NoError(t, err)
	require.Equal(t, catalog.Stats{Rows: 13, Fragments: 2}, tbl.Stats())
	req := catalog.ScanRequest{Columns: []int{1, 0}, Limit: -1}
	ms, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	require.Equal(t, []catalog.Morsel{
		{Fragment: 0, Start: 0, End: 4}, {Fragment: 0, Start: 4, End: 8},
		{Fragment: 0, Start: 8, End: 10}, {Fragment: 1, Start: 0, End: 3},
	}, ms)

	rd, err := tbl.Scan(ctx, req, ms[1], mem)
	require.NoError(t, err)
	defer rd.Close()
	rec, err := rd.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, `["e" "f" "g" "h"]`, rec.Column(0).String())
	require.Equal(t, "[4 5 6 7]", rec.Column(1).String())
	require.Equal(t, "s", rec.Schema().Field(0).Name)
	rec.Release()
	end, err := rd.Next(ctx)
	require.NoError(t, err)
	require.Nil(t, end)

	limited, err := tbl.Scan(ctx, catalog.ScanRequest{Columns: nil, Limit: 1}, ms[3], mem)
	require.NoError(t, err)
	rec, err = limited.Next(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, rec.NumRows())
	require.EqualValues(t, 0, rec.NumCols())
	rec.Release()
	require.NoError(t, limited.Close())

	_, err = tbl.Scan(ctx, catalog.ScanRequest{Columns: []int{2}}, ms[0], mem)
	require.Error(t, err)
	_, err = tbl.Scan(ctx, req, catalog.Morsel{Fragment: 0, Start: 8, End: 11}, mem)
	require.Error(t, err)
}

func TestAddTableSchemaMismatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat := memcat.New()
	defer cat.Release()
	b := batch(mem, 0, 2)
	defer b.Release()
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	require.Error(t, cat.AddTable("t", other, b))
}
