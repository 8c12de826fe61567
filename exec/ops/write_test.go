package ops_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// writeTable is the target snapshot: table "items" at version 4.
type writeTable struct{ schema *arrow.Schema }

func (writeTable) Name() string            { return "items" }
func (writeTable) Version() uint64         { return 4 }
func (w writeTable) Schema() *arrow.Schema { return w.schema }
func (writeTable) Stats() catalog.Stats    { return catalog.Stats{Rows: -1} }
func (writeTable) Morsels(context.Context, catalog.ScanRequest) ([]catalog.Morsel, error) {
	return nil, nil
}
func (writeTable) Scan(context.Context, catalog.ScanRequest, catalog.Morsel, memory.Allocator) (catalog.RecordReader, error) {
	return nil, errors.New("not scanned in these tests")
}

// writeCall is one call a recordingCatalog received.
type writeCall struct {
	op          string
	name        string
	readVersion uint64
	addrs       []uint64
	schema      *arrow.Schema
	rows        exectest.Rows
}

// recordingCatalog records write calls (copying the rows: the batches are the caller's) and
// answers version 5 or err.
type recordingCatalog struct {
	calls []writeCall
	err   error
}

func (*recordingCatalog) ListTables(context.Context) ([]string, error) { return nil, nil }
func (*recordingCatalog) LoadTable(context.Context, string, catalog.VersionRef) (catalog.Table, error) {
	return nil, catalog.ErrNoSuchTable
}
func (c *recordingCatalog) record(call writeCall, batches []arrow.RecordBatch) (uint64, error) {
	if len(batches) > 0 {
		call.schema = batches[0].Schema()
		call.rows = exectest.ToRows(batches)
	}
	c.calls = append(c.calls, call)
	if c.err != nil {
		return 0, c.err
	}
	return 5, nil
}
func (c *recordingCatalog) CreateTable(context.Context, string, *arrow.Schema, []arrow.RecordBatch, catalog.CreateMode) (uint64, error) {
	return 0, errors.New("not used")
}
func (c *recordingCatalog) Append(_ context.Context, name string, batches []arrow.RecordBatch) (uint64, error) {
	return c.record(writeCall{op: "append", name: name}, batches)
}
func (c *recordingCatalog) DeleteRows(_ context.Context, name string, v uint64, addrs []uint64) (uint64, error) {
	return c.record(writeCall{op: "delete", name: name, readVersion: v, addrs: addrs}, nil)
}
func (c *recordingCatalog) UpdateRows(_ context.Context, name string, v uint64, addrs []uint64, rows []arrow.RecordBatch) (uint64, error) {
	return c.record(writeCall{op: "update", name: name, readVersion: v, addrs: addrs}, rows)
}

// readOnlyCatalog has no write capability.
type readOnlyCatalog struct{}

func (readOnlyCatalog) ListTables(context.Context) ([]string, error) { return nil, nil }
func (readOnlyCatalog) LoadTable(context.Context, string, catalog.VersionRef) (catalog.Table, error) {
	return nil, catalog.ErrNoSuchTable
}

// TestWrite runs the write operator over sources of two batches (so that rows and row
// addresses are gathered across batches) and checks the catalog call and the count.
func TestWrite(t *testing.T) {
	u64 := arrow.PrimitiveTypes.Uint64
	table := arrow.NewSchema([]arrow.Field{{Name: "id", Type: i64}, {Name: "name", Type: str, Nullable: true}}, nil)
	insertSrc := schema(field("id", i64), field("name", str))
	updateSrc := schema(arrow.Field{Name: "_rowaddr", Type: u64}, field("id", i64), field("name", str))
	deleteSrc := schema(arrow.Field{Name: "_rowaddr", Type: u64})
	conflict := errors.Join(errors.New("someone compacted"), catalog.ErrCommitConflict)
	tests := []struct {
		name    string
		kind    ops.WriteKind
		cat     catalog.Catalog
		src     *arrow.Schema
		rows    exectest.Rows
		count   int64
		version uint64
		call    *writeCall
		errKind dberr.Kind
		errIs   error
	}{
		{name: "insert", kind: ops.WriteInsert, cat: &recordingCatalog{}, src: insertSrc,
			rows:  exectest.Rows{{1, "a"}, {2, nil}, {3, "c"}},
			count: 3, version: 5,
			call: &writeCall{op: "append", name: "items", schema: table, rows: exectest.Rows{{1, "a"}, {2, nil}, {3, "c"}}}},
		{name: "insert nothing", kind: ops.WriteInsert, cat: &recordingCatalog{}, src: insertSrc, count: 0, version: 5,
			call: &writeCall{op: "append", name: "items"}}, // one version per statement, as pylance
		{name: "insert null into NOT NULL", kind: ops.WriteInsert, cat: &recordingCatalog{}, src: insertSrc,
			rows: exectest.Rows{{1, "a"}, {nil, "b"}}, errKind: dberr.Constraint},
		{name: "insert read-only", kind: ops.WriteInsert, cat: readOnlyCatalog{}, src: insertSrc,
			rows: exectest.Rows{{1, "a"}}, errKind: dberr.NotImplemented},
		{name: "delete", kind: ops.WriteDelete, cat: &recordingCatalog{}, src: deleteSrc,
			rows:  exectest.Rows{{uint64(3)}, {uint64(1<<32 | 7)}, {uint64(9)}},
			count: 3, version: 5,
			call: &writeCall{op: "delete", name: "items", readVersion: 4, addrs: []uint64{3, 1<<32 | 7, 9}}},
		{name: "delete nothing", kind: ops.WriteDelete, cat: &recordingCatalog{}, src: deleteSrc, count: 0, version: 5,
			call: &writeCall{op: "delete", name: "items", readVersion: 4}},
		{name: "update nothing", kind: ops.WriteUpdate, cat: &recordingCatalog{}, src: updateSrc, count: 0, version: 5,
			call: &writeCall{op: "update", name: "items", readVersion: 4}},
		{name: "delete conflict", kind: ops.WriteDelete, cat: &recordingCatalog{err: conflict}, src: deleteSrc,
			rows: exectest.Rows{{uint64(3)}}, errIs: catalog.ErrCommitConflict,
			call: &writeCall{op: "delete", name: "items", readVersion: 4, addrs: []uint64{3}}},
		{name: "delete read-only", kind: ops.WriteDelete, cat: readOnlyCatalog{}, src: deleteSrc,
			rows: exectest.Rows{{uint64(3)}}, errKind: dberr.NotImplemented},
		{name: "update", kind: ops.WriteUpdate, cat: &recordingCatalog{}, src: updateSrc,
			rows:  exectest.Rows{{uint64(2), 10, "x"}, {uint64(1 << 32), 11, nil}},
			count: 2, version: 5,
			call: &writeCall{op: "update", name: "items", readVersion: 4, addrs: []uint64{2, 1 << 32},
				schema: table, rows: exectest.Rows{{10, "x"}, {11, nil}}}},
		{name: "update null into NOT NULL", kind: ops.WriteUpdate, cat: &recordingCatalog{}, src: updateSrc,
			rows: exectest.Rows{{uint64(2), nil, "x"}}, errKind: dberr.Constraint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			batches, err := exectest.MakeBatches(mem, tt.src, tt.rows, 2, exectest.Hostile)
			require.NoError(t, err)
			target := plan.WriteTarget{Catalog: tt.cat, Table: writeTable{schema: table}}
			w := ops.NewWrite(exectest.NewSource(tt.src, batches), tt.kind, target, exec.Env{Mem: mem})
			defer w.Close()
			require.Equal(t, plan.CountSchema, w.Schema())
			require.NoError(t, w.Open(ctx))
			b, err := w.Next(ctx)
			if rc, ok := tt.cat.(*recordingCatalog); ok {
				if tt.call == nil {
					require.Empty(t, rc.calls, "a failed write commits nothing")
				} else {
					require.Len(t, rc.calls, 1)
					got := rc.calls[0]
					require.Equal(t, tt.call.op, got.op)
					require.Equal(t, tt.call.name, got.name)
					require.Equal(t, tt.call.readVersion, got.readVersion)
					require.Equal(t, tt.call.addrs, got.addrs)
					if tt.call.schema != nil {
						require.True(t, tt.call.schema.Equal(got.schema), "rows carry the table's schema: %v", got.schema)
					}
					exectest.RequireRows(t, tt.call.rows, got.rows, true)
				}
			}
			if tt.errIs != nil || tt.errKind != dberr.Internal { // Internal, the zero kind, means "no error"
				require.Error(t, err)
				require.Nil(t, b)
				if tt.errIs != nil {
					require.ErrorIs(t, err, tt.errIs)
				} else {
					kind, ok := dberr.KindOf(err)
					require.True(t, ok, "%v", err)
					require.Equal(t, tt.errKind, kind, "%v", err)
				}
				return
			}
			require.NoError(t, err)
			require.NotNil(t, b)
			defer b.Release()
			exectest.RequireRows(t, exectest.Rows{{tt.count}}, exectest.ToRows([]arrow.RecordBatch{b}), true)
			require.Equal(t, tt.version, w.Version())
			end, err := w.Next(ctx)
			require.NoError(t, err)
			require.Nil(t, end, "one row, then the end")
		})
	}
}

// TestCreateTableOp creates a table from its input rows; IF NOT EXISTS turns "exists" into
// a count of 0, otherwise it is the error.
func TestCreateTableOp(t *testing.T) {
	table := arrow.NewSchema([]arrow.Field{{Name: "id", Type: i64}, {Name: "name", Type: str, Nullable: true}}, nil)
	src := schema(field("id", i64), field("name", str))
	exists := errors.Join(errors.New("create"), catalog.ErrTableExists)
	tests := []struct {
		name        string
		err         error
		ifNotExists bool
		rows        exectest.Rows
		count       int64
		wantErr     error
	}{
		{name: "rows", rows: exectest.Rows{{1, "a"}, {2, nil}, {3, "c"}}, count: 3},
		{name: "no rows", count: 0},
		{name: "exists", err: exists, rows: exectest.Rows{{1, "a"}}, wantErr: catalog.ErrTableExists},
		{name: "if not exists", err: exists, ifNotExists: true, rows: exectest.Rows{{1, "a"}}, count: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			batches, err := exectest.MakeBatches(mem, src, tt.rows, 2, exectest.Hostile)
			require.NoError(t, err)
			cat := &creatingCatalog{err: tt.err}
			node := &plan.CreateTable{Catalog: cat, Name: "made", Table: table, Mode: catalog.CreateOrReplace, IfNotExists: tt.ifNotExists}
			op := ops.NewCreateTable(exectest.NewSource(src, batches), node, exec.Env{Mem: mem})
			defer op.Close()
			require.NoError(t, op.Open(ctx))
			b, err := op.Next(ctx)
			require.Equal(t, "made", cat.name)
			require.Equal(t, catalog.CreateOrReplace, cat.mode)
			require.True(t, table.Equal(cat.schema))
			exectest.RequireRows(t, tt.rows, cat.rows, true)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			defer b.Release()
			exectest.RequireRows(t, exectest.Rows{{tt.count}}, exectest.ToRows([]arrow.RecordBatch{b}), true)
		})
	}
}

// creatingCatalog records one CreateTable call and answers err.
type creatingCatalog struct {
	recordingCatalog
	name   string
	schema *arrow.Schema
	mode   catalog.CreateMode
	rows   exectest.Rows
	err    error
}

func (c *creatingCatalog) CreateTable(_ context.Context, name string, sc *arrow.Schema, batches []arrow.RecordBatch, mode catalog.CreateMode) (uint64, error) {
	c.name, c.schema, c.mode = name, sc, mode
	if len(batches) > 0 {
		c.rows = exectest.ToRows(batches)
	}
	return 1, c.err
}

// TestWriteMemoryLimit: the rows a write holds until its commit count against the query's
// memory limit; over it, the write fails cleanly and commits nothing.
func TestWriteMemoryLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	src := schema(field("id", i64), field("name", str))
	rows := make(exectest.Rows, 1000)
	for i := range rows {
		rows[i] = []any{i, "some text to fill the batch"}
	}
	batches, err := exectest.MakeBatches(mem, src, rows, 100, exectest.Plain)
	require.NoError(t, err)
	table := arrow.NewSchema([]arrow.Field{{Name: "id", Type: i64}, {Name: "name", Type: str, Nullable: true}}, nil)
	cat := &recordingCatalog{}
	pool := exec.NewMemoryPool(4 << 10)
	w := ops.NewWrite(exectest.NewSource(src, batches), ops.WriteInsert,
		plan.WriteTarget{Catalog: cat, Table: writeTable{schema: table}}, exec.Env{Mem: mem, Pool: pool})
	defer w.Close()
	require.NoError(t, w.Open(ctx))
	_, err = w.Next(ctx)
	require.ErrorIs(t, err, exec.ErrMemoryLimit)
	require.Empty(t, cat.calls)
	require.Zero(t, pool.Used(), "the reservation is freed")
}
