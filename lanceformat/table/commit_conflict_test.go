package table_test

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

type env struct {
	ctx context.Context
	mem memory.Allocator
	ds  *table.Dataset
	dir string
	v1  *table.Manifest
}

// appendOp writes rows [start, start+n) and returns the append operation.
func appendOp(t *testing.T, ctx context.Context, mem memory.Allocator, ds *table.Dataset, m *table.Manifest, start, n int64) table.Operation {
	t.Helper()
	sc, err := schema.FromProto(m.Fields())
	require.NoError(t, err)
	b := idNameBatch(mem, start, n)
	defer b.Release()
	v, err := table.FileVersion(m.DataFormatVersion())
	require.NoError(t, err)
	frags, err := ds.WriteFragments(ctx, sc, v, []arrow.RecordBatch{b}, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	return table.NewAppend(frags)
}

func deleteOp(t *testing.T, m *table.Manifest, rows map[uint64][]uint32) table.Operation {
	t.Helper()
	op, err := table.NewDelete(m, rows, "")
	require.NoError(t, err)
	return op
}

// TestConcurrentOperationConflicts plans an operation on version 1, lets another commit
// land first, then commits: compatible pairs are rebased, the others fail with the typed
// error and commit nothing.
func TestConcurrentOperationConflicts(t *testing.T) {
	commit := func(t *testing.T, e env, op table.Operation) {
		t.Helper()
		_, err := e.ds.Commit(e.ctx, e.v1.Version(), op, nil)
		require.NoError(t, err)
	}
	cases := []struct {
		name    string
		mine    func(t *testing.T, e env) table.Operation
		theirs  func(t *testing.T, e env)
		wantErr error   // nil: committed as version 3
		wantIDs []int64 // pylance's view of the result (nil: not checked)
	}{
		{
			name:    "append vs append",
			mine:    func(t *testing.T, e env) table.Operation { return appendOp(t, e.ctx, e.mem, e.ds, e.v1, 100, 2) },
			theirs:  func(t *testing.T, e env) { commit(t, e, appendOp(t, e.ctx, e.mem, e.ds, e.v1, 200, 2)) },
			wantIDs: append(seq(0, 30), 100, 101, 200, 201),
		},
		{
			name:    "delete vs append",
			mine:    func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{0: {0}}) },
			theirs:  func(t *testing.T, e env) { commit(t, e, appendOp(t, e.ctx, e.mem, e.ds, e.v1, 200, 1)) },
			wantIDs: append(seq(1, 29), 200),
		},
		{
			name:    "delete vs delete of the same fragment merges",
			mine:    func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{1: {0, 1}}) },
			theirs:  func(t *testing.T, e env) { commit(t, e, deleteOp(t, e.v1, map[uint64][]uint32{1: {1, 2}, 2: {9}})) },
			wantIDs: without(seq(0, 30), 10, 11, 12, 29),
		},
		{
			name:    "delete vs delete that removed the fragment",
			mine:    func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{1: {0}}) },
			theirs:  func(t *testing.T, e env) { commit(t, e, deleteOp(t, e.v1, map[uint64][]uint32{1: u32seq(10)})) },
			wantErr: table.ErrRetryableCommitConflict,
		},
		{
			name: "append vs overwrite",
			mine: func(t *testing.T, e env) table.Operation { return appendOp(t, e.ctx, e.mem, e.ds, e.v1, 100, 1) },
			theirs: func(t *testing.T, e env) {
				b := idNameBatch(e.mem, 500, 1)
				defer b.Release()
				_, err := e.ds.Create(e.ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
					Mode: table.CreateOrOverwrite, Write: table.WriteOptions{Allocator: e.mem}})
				require.NoError(t, err)
			},
			wantErr: table.ErrCommitConflict,
		},
		{
			name:    "delete vs restore",
			mine:    func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{0: {0}}) },
			theirs:  func(t *testing.T, e env) { commit(t, e, table.NewRestore(1)) },
			wantErr: table.ErrCommitConflict,
		},
		{
			name: "add columns vs append",
			mine: func(t *testing.T, e env) table.Operation {
				return nil // AddColumns plans and commits in one call: see below
			},
			theirs:  func(t *testing.T, e env) { commit(t, e, appendOp(t, e.ctx, e.mem, e.ds, e.v1, 200, 1)) },
			wantErr: table.ErrRetryableCommitConflict,
		},
		{
			name:    "drop column vs rename column",
			mine:    func(t *testing.T, e env) table.Operation { return table.NewDropColumns("name") },
			theirs:  func(t *testing.T, e env) { commit(t, e, table.NewRenameColumn("name", "label")) },
			wantErr: table.ErrRetryableCommitConflict,
		},
		{
			name: "rename column vs append",
			mine: func(t *testing.T, e env) table.Operation { return table.NewRenameColumn("name", "label") },
			theirs: func(t *testing.T, e env) {
				commit(t, e, appendOp(t, e.ctx, e.mem, e.ds, e.v1, 200, 1))
			},
			wantIDs: append(seq(0, 30), 200),
		},
		{
			name:    "rewrite vs delete of a rewritten fragment",
			mine:    func(t *testing.T, e env) table.Operation { return rewriteOp(t, e, 0) },
			theirs:  func(t *testing.T, e env) { commit(t, e, deleteOp(t, e.v1, map[uint64][]uint32{0: {0}})) },
			wantErr: table.ErrRetryableCommitConflict,
		},
		{
			name:    "delete vs our rewrite",
			mine:    func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{0: {0}}) },
			theirs:  func(t *testing.T, e env) { commit(t, e, rewriteOp(t, e, 0)) },
			wantErr: table.ErrRetryableCommitConflict,
		},
		{
			name: "rewrite vs append and delete elsewhere",
			mine: func(t *testing.T, e env) table.Operation { return rewriteOp(t, e, 0, 1) },
			theirs: func(t *testing.T, e env) {
				commit(t, e, appendOp(t, e.ctx, e.mem, e.ds, e.v1, 200, 1))
				commit(t, e, deleteOp(t, e.v1, map[uint64][]uint32{2: {0}}))
			},
			wantIDs: append(seq(0, 20), append(seq(21, 9), 200)...),
		},
		{
			name: "delete vs pylance compaction",
			mine: func(t *testing.T, e env) table.Operation { return deleteOp(t, e.v1, map[uint64][]uint32{0: {0}}) },
			theirs: func(t *testing.T, e env) {
				runPy(t, "import sys, lance; lance.dataset(sys.argv[1]).optimize.compact_files()", e.dir)
			},
			wantErr: table.ErrRetryableCommitConflict,
		},
	}
	t.Parallel()
	parent := t // subtests' temporary directories vanish when they end
	var mu sync.Mutex
	var specs []string
	var wantIDs [][]int64
	t.Run("commit", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				ctx := context.Background()
				ds, dir := newDataset(parent)
				b := idNameBatch(mem, 0, 30)
				defer b.Release()
				v1, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{
					Write: table.WriteOptions{MaxRowsPerFile: 10, Allocator: mem}})
				require.NoError(t, err)
				e := env{ctx: ctx, mem: mem, ds: ds, dir: dir, v1: v1}
				mine := tc.mine(t, e)
				tc.theirs(t, e)
				before, err := ds.LatestVersion(ctx)
				require.NoError(t, err)
				if mine == nil {
					cols := arrow.NewSchema([]arrow.Field{{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
					_, err = ds.AddColumns(ctx, 1, cols, scoreFiller(mem, map[uint64]int64{0: 0, 1: 10, 2: 20}), nil)
				} else {
					_, err = ds.Commit(ctx, 1, mine, nil)
				}
				after, lerr := ds.LatestVersion(ctx)
				require.NoError(t, lerr)
				if tc.wantErr != nil {
					require.ErrorIs(t, err, tc.wantErr)
					var cce *table.CommitConflictError
					require.ErrorAs(t, err, &cce)
					require.Equal(t, uint64(1), cce.ReadVersion)
					require.Equal(t, before, after, "a failed commit commits nothing")
					return
				}
				require.NoError(t, err)
				require.Equal(t, before+1, after)
				if tc.wantIDs != nil {
					mu.Lock()
					specs = append(specs, dir+"@0")
					wantIDs = append(wantIDs, tc.wantIDs)
					mu.Unlock()
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	for i, v := range pylanceViewSpecs(t, specs...) {
		require.Equal(t, wantIDs[i], v.IDs, specs[i])
	}
}

// rewriteOp rewrites fragments (of 10 rows: ids 10*f .. 10*f+9) into one new fragment
// holding the same rows.
func rewriteOp(t *testing.T, e env, frags ...uint64) table.Operation {
	t.Helper()
	sc, err := schema.FromProto(e.v1.Fields())
	require.NoError(t, err)
	var bs []arrow.RecordBatch
	for _, f := range frags {
		bs = append(bs, idNameBatch(e.mem, int64(10*f), 10))
	}
	defer release(bs...)
	nf, err := e.ds.WriteFragments(e.ctx, sc, file.V2_2, bs, &table.WriteOptions{Allocator: e.mem})
	require.NoError(t, err)
	op, err := table.NewRewrite(e.v1, []table.RewriteGroup{{Old: frags, New: nf}})
	require.NoError(t, err)
	return op
}

func u32seq(n uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}
