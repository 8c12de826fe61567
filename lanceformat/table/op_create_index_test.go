package table_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// segment is index metadata (no files: the table layer does not read them) over frags.
func segment(name string, id byte, field int32, frags ...uint32) *lancepb.IndexMetadata {
	u := make([]byte, 16)
	u[0] = id
	return &lancepb.IndexMetadata{Uuid: &lancepb.UUID{Uuid: u}, Name: name, Fields: []int32{field},
		DatasetVersion: 1, FragmentBitmap: table.EncodeRoaring(frags)}
}

func indexNames(m *table.Manifest) []string {
	var out []string
	for _, ix := range m.Indices {
		out = append(out, ix.GetName())
	}
	return out
}

// TestCreateIndexOp commits index additions and removals planned on version 1 (three
// fragments of 10 rows) after a concurrent commit, and checks Lance's conflict rules.
func TestCreateIndexOp(t *testing.T) {
	t.Parallel()
	createIdx := func(t *testing.T, e env) table.Operation {
		op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("id_idx", 1, 0, 0, 1, 2)}, nil)
		require.NoError(t, err)
		return op
	}
	cases := []struct {
		name      string
		theirs    func(t *testing.T, e env)
		mine      func(t *testing.T, e env) table.Operation
		wantErr   error
		wantNames []string
	}{
		{"after append", func(t *testing.T, e env) {
			b := idNameBatch(e.mem, 30, 5)
			defer b.Release()
			_, err := e.ds.Append(e.ctx, []arrow.RecordBatch{b}, &table.WriteOptions{Allocator: e.mem})
			require.NoError(t, err)
		}, createIdx, nil, []string{"id_idx"}},
		{"after delete", func(t *testing.T, e env) {
			_, err := e.ds.DeleteRows(e.ctx, 1, map[uint64][]uint32{1: {2}}, "")
			require.NoError(t, err)
		}, createIdx, nil, []string{"id_idx"}},
		{"after another index", func(t *testing.T, e env) {
			op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("name_idx", 2, 1, 0, 1, 2)}, nil)
			require.NoError(t, err)
			_, err = e.ds.Commit(e.ctx, 1, op, nil)
			require.NoError(t, err)
		}, createIdx, nil, []string{"name_idx", "id_idx"}},
		{"same name concurrently", func(t *testing.T, e env) {
			op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("id_idx", 2, 1, 0, 1, 2)}, nil)
			require.NoError(t, err)
			_, err = e.ds.Commit(e.ctx, 1, op, nil)
			require.NoError(t, err)
		}, createIdx, table.ErrRetryableCommitConflict, nil},
		{"after overwrite", func(t *testing.T, e env) {
			b := idNameBatch(e.mem, 0, 5)
			defer b.Release()
			_, err := e.ds.Create(e.ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
				Mode: table.CreateOrOverwrite, Write: table.WriteOptions{Allocator: e.mem}})
			require.NoError(t, err)
		}, createIdx, table.ErrCommitConflict, nil},
		{"after rewrite of a covered fragment", func(t *testing.T, e env) {
			_, err := e.ds.Commit(e.ctx, 1, rewriteOp(t, e, 1), nil)
			require.NoError(t, err)
		}, createIdx, table.ErrRetryableCommitConflict, nil},
		{"after rewrite of an uncovered fragment", func(t *testing.T, e env) {
			_, err := e.ds.Commit(e.ctx, 1, rewriteOp(t, e, 2), nil)
			require.NoError(t, err)
		}, func(t *testing.T, e env) table.Operation {
			op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("id_idx", 1, 0, 0, 1)}, nil)
			require.NoError(t, err)
			return op
		}, nil, []string{"id_idx"}},
		{"drop of a segment that is gone", func(t *testing.T, e env) {}, func(t *testing.T, e env) table.Operation {
			op, err := table.NewCreateIndex(nil, []*lancepb.IndexMetadata{segment("id_idx", 9, 0, 0)})
			require.NoError(t, err)
			return op
		}, table.ErrRetryableCommitConflict, nil},
		{"index over an unknown field", func(t *testing.T, e env) {}, func(t *testing.T, e env) table.Operation {
			op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("x", 1, 77, 0)}, nil)
			require.NoError(t, err)
			return op
		}, table.ErrRetryableCommitConflict, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			ds, dir := newDataset(t)
			b := idNameBatch(mem, 0, 30)
			defer b.Release()
			v1, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
				Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
			require.NoError(t, err)
			e := env{ctx: ctx, mem: mem, ds: ds, dir: dir, v1: v1}
			mine := tc.mine(t, e)
			tc.theirs(t, e)
			m, err := ds.Commit(ctx, 1, mine, nil)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantNames, indexNames(m))
			txn, err := ds.ReadTransaction(ctx, m)
			require.NoError(t, err)
			require.Equal(t, "create_index", table.OperationName(txn))
			require.Len(t, txn.GetCreateIndex().GetNewIndices(), 1)
		})
	}
}

// TestCreateIndexDrop adds two segments of one index and removes both in one commit.
func TestCreateIndexDrop(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, _ := newDataset(t)
	b := idNameBatch(mem, 0, 20)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
		Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
	require.NoError(t, err)
	for i, f := range []uint32{0, 1} {
		op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{segment("id_idx", byte(i+1), 0, f)}, nil)
		require.NoError(t, err)
		_, err = ds.Commit(ctx, uint64(i+1), op, nil)
		require.NoError(t, err)
	}
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"id_idx", "id_idx"}, indexNames(m))
	op, err := table.NewCreateIndex(nil, m.Indices)
	require.NoError(t, err)
	m, err = ds.Commit(ctx, m.Version(), op, nil)
	require.NoError(t, err)
	require.Empty(t, m.Indices)
	require.Len(t, m.Transaction.GetCreateIndex().GetRemovedIndices(), 2)

	_, err = table.NewCreateIndex(nil, nil)
	require.ErrorIs(t, err, table.ErrInvalidWrite)
	_, err = table.NewCreateIndex([]*lancepb.IndexMetadata{{Name: "x"}}, nil)
	require.ErrorIs(t, err, table.ErrInvalidWrite)
}
