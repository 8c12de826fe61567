package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/table"
)

// without returns ids minus drop, keeping order.
func without(ids []int64, drop ...int64) []int64 {
	return slices.DeleteFunc(slices.Clone(ids), func(x int64) bool { return slices.Contains(drop, x) })
}

// scoreFiller fills a float64 column "score" with 2*id, where fragment f's row offset o has
// id start[f]+o.
func scoreFiller(mem memory.Allocator, start map[uint64]int64) table.ColumnFiller {
	return func(_ context.Context, frag, n uint64) ([]arrow.RecordBatch, error) {
		s, ok := start[frag]
		if !ok {
			return nil, fmt.Errorf("unexpected fragment %d", frag)
		}
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for i := range int64(n) {
			b.Append(float64(2 * (s + i)))
		}
		col := b.NewArray()
		defer col.Release()
		sc := arrow.NewSchema([]arrow.Field{{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
		return []arrow.RecordBatch{array.NewRecordBatch(sc, []arrow.Array{col}, int64(n))}, nil
	}
}

func scores(ids []int64) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%.1f", float64(2*id))
	}
	return out
}

// TestOperationsReadByPylance runs every operation once and checks each version with
// pylance: rows, values, schema and field ids.
func TestOperationsReadByPylance(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	wo := &table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}
	b := idNameBatch(mem, 0, 30)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{DataFormat: file.V2_1, Write: *wo})
	require.NoError(t, err) // v1: fragments 0,1,2 = ids 0-9, 10-19, 20-29

	all := []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	m, err := ds.DeleteRows(ctx, 1, map[uint64][]uint32{0: {3, 1}, 1: all}, "id in (1,3) or id between 10 and 19")
	require.NoError(t, err) // v2
	require.Equal(t, []uint64{0, 2}, fragmentIDs(m), "fully deleted fragment 1 is dropped")
	require.Equal(t, uint64(2), m.Fragments()[0].GetDeletionFile().GetNumDeletedRows())
	require.Equal(t, uint64(1), m.Proto.GetReaderFeatureFlags()&table.FlagDeletionFiles)

	m, err = ds.DeleteRows(ctx, 2, map[uint64][]uint32{0: {5, 1}}, "id in (1,5)")
	require.NoError(t, err) // v3: merged with the existing deletion file
	dv, err := ds.ReadDeletionVector(ctx, m.Fragments()[0])
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 3, 5}, dv.Offsets())

	upd := idNameBatch(mem, 100, 1)
	defer upd.Release()
	m, err = ds.Update(ctx, 3, map[uint64][]uint32{2: {0}}, []arrow.RecordBatch{upd}, wo)
	require.NoError(t, err) // v4: id 20 replaced by id 100 in new fragment 3
	require.Equal(t, []uint64{0, 2, 3}, fragmentIDs(m))

	cols := arrow.NewSchema([]arrow.Field{{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	m, err = ds.AddColumns(ctx, 4, cols, scoreFiller(mem, map[uint64]int64{0: 0, 2: 20, 3: 100}), wo)
	require.NoError(t, err) // v5
	require.Len(t, m.Fragments()[0].GetFiles(), 2)
	require.NoError(t, ds.CreateTag(ctx, "with_score", 5))
	require.ErrorIs(t, ds.CreateTag(ctx, "with_score", 4), table.ErrTagExists)
	require.NoError(t, ds.CreateTag(ctx, "doomed", 1))
	require.NoError(t, ds.DeleteTag(ctx, "doomed"))
	require.ErrorIs(t, ds.DeleteTag(ctx, "doomed"), table.ErrTagNotFound)

	_, err = ds.RenameColumn(ctx, "name", "label")
	require.NoError(t, err) // v6
	_, err = ds.DropColumns(ctx, "score")
	require.NoError(t, err) // v7
	_, err = ds.DropColumns(ctx, "nope")
	require.ErrorIs(t, err, table.ErrInvalidWrite)
	m, err = ds.Restore(ctx, 2)
	require.NoError(t, err) // v8
	require.Equal(t, uint32(3), m.Proto.GetMaxFragmentId(), "the high-water mark never goes back")

	ids1 := seq(0, 30)
	ids2 := without(ids1, append([]int64{1, 3}, seq(10, 10)...)...)
	ids3 := without(ids2, 5)
	ids4 := append(without(ids3, 20), 100)
	views := pylanceViews(t, dir, 1, 2, 3, 4, 5, 6, 7, 8)
	want := []struct {
		ids    []int64
		fields [][2]any
	}{
		{ids1, [][2]any{{"id", 0.0}, {"name", 1.0}}},
		{ids2, [][2]any{{"id", 0.0}, {"name", 1.0}}},
		{ids3, [][2]any{{"id", 0.0}, {"name", 1.0}}},
		{ids4, [][2]any{{"id", 0.0}, {"name", 1.0}}},
		{ids4, [][2]any{{"id", 0.0}, {"name", 1.0}, {"score", 2.0}}},
		{ids4, [][2]any{{"id", 0.0}, {"label", 1.0}, {"score", 2.0}}},
		{ids4, [][2]any{{"id", 0.0}, {"label", 1.0}}},
		{ids2, [][2]any{{"id", 0.0}, {"name", 1.0}}},
	}
	for i, w := range want {
		v := views[i]
		require.Equal(t, uint64(i+1), v.Version)
		require.Equal(t, seqU(1, 8), v.Versions)
		require.Equal(t, int64(len(w.ids)), v.Rows, "version %d", i+1)
		require.Equal(t, w.ids, v.IDs, "version %d", i+1)
		require.Equal(t, w.fields, v.Fields, "version %d", i+1)
	}
	require.Equal(t, names(ids4), views[4].Names)
	require.Equal(t, [][]string{scores(ids4)}, views[4].Extra)
	require.Equal(t, [][]string{names(ids4), scores(ids4)}, views[5].Extra)
	require.Equal(t, [][]string{names(ids4)}, views[6].Extra)
}

func seqU(start, n uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = start + uint64(i)
	}
	return out
}
