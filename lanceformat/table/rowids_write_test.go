package table_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestStableRowIDCommits: a dataset created with StableRowIDs gets the feature flags,
// Range sequences and next_row_id; appends continue from next_row_id; an update by offsets
// (no row order) and operations without stable-row-id support are refused; UpdateRows keeps
// the updated rows' ids.
func TestStableRowIDCommits(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, _ := newDataset(t)
	b := idNameBatch(mem, 0, 10)
	defer b.Release()
	m, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b},
		&table.CreateOptions{StableRowIDs: true, Write: table.WriteOptions{Allocator: mem, MaxRowsPerFile: 6}})
	require.NoError(t, err)
	require.True(t, table.UsesStableRowIDs(m))
	require.Equal(t, table.FlagStableRowIDs, m.Proto.GetReaderFeatureFlags())
	require.Equal(t, table.FlagStableRowIDs, m.Proto.GetWriterFeatureFlags())
	require.Equal(t, uint64(10), m.Proto.GetNextRowId())
	ids, err := table.DecodeRowIDs(m.Fragments()[1].GetInlineRowIds(), 4)
	require.NoError(t, err)
	require.Equal(t, []uint64{6, 7, 8, 9}, ids)

	m, err = ds.Append(ctx, []arrow.RecordBatch{b}, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	require.Equal(t, uint64(20), m.Proto.GetNextRowId())
	ids, err = table.DecodeRowIDs(m.Fragments()[2].GetInlineRowIds(), 10)
	require.NoError(t, err)
	require.Equal(t, uint64(10), ids[0])
	require.Equal(t, uint64(19), ids[9])

	one := idNameBatch(mem, 100, 1)
	defer one.Release()
	_, err = ds.Update(ctx, m.Version(), map[uint64][]uint32{1: {2}}, []arrow.RecordBatch{one}, &table.WriteOptions{Allocator: mem})
	require.ErrorIs(t, err, table.ErrUnsupportedFeature)
	require.ErrorContains(t, err, "not supported yet: update without row addresses")
	m, err = ds.UpdateRows(ctx, m.Version(), []uint64{1<<32 | 2}, []arrow.RecordBatch{one}, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	require.Equal(t, uint64(20), m.Proto.GetNextRowId(), "an update assigns no new ids")
	last := m.Fragments()[len(m.Fragments())-1]
	ids, err = table.DecodeRowIDs(last.GetInlineRowIds(), 1)
	require.NoError(t, err)
	require.Equal(t, []uint64{8}, ids, "the updated row keeps id 8")

	_, err = ds.Restore(ctx, 1)
	require.ErrorIs(t, err, table.ErrUnsupportedFeature)
	require.ErrorContains(t, err, "not supported yet: restore with stable row ids")
}
