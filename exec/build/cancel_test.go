package build_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/planner/plan"
)

// endlessTable is a table whose morsels go on (for practical purposes) forever: every
// reader yields batches of fresh int64 values allocated from the scan's allocator until its
// context is cancelled. onBatch is called after each batch is made.
type endlessTable struct {
	schema  *arrow.Schema
	batches atomic.Int64
	onBatch func(n int64)
}

const endlessBatchRows = 256

func newEndless(onBatch func(int64)) *endlessTable {
	return &endlessTable{schema: arrow.NewSchema([]arrow.Field{{Name: "x", Type: i64}, {Name: "k", Type: i64}}, nil),
		onBatch: onBatch}
}

func (e *endlessTable) Name() string          { return "endless" }
func (e *endlessTable) Version() uint64       { return 1 }
func (e *endlessTable) Schema() *arrow.Schema { return e.schema }
func (e *endlessTable) Stats() catalog.Stats  { return catalog.Stats{Rows: -1, Fragments: 8} }

func (e *endlessTable) Morsels(context.Context, catalog.ScanRequest) ([]catalog.Morsel, error) {
	ms := make([]catalog.Morsel, 8)
	for i := range ms {
		ms[i] = catalog.Morsel{Fragment: uint64(i), Start: 0, End: 1 << 40}
	}
	return ms, nil
}

func (e *endlessTable) Scan(_ context.Context, req catalog.ScanRequest, m catalog.Morsel, mem memory.Allocator) (catalog.RecordReader, error) {
	fields := make([]arrow.Field, len(req.Columns))
	for i, c := range req.Columns {
		fields[i] = e.schema.Field(c)
	}
	return &endlessReader{t: e, schema: arrow.NewSchema(fields, nil), mem: mem, next: int64(m.Fragment) << 32}, nil
}

type endlessReader struct {
	t      *endlessTable
	schema *arrow.Schema
	mem    memory.Allocator
	next   int64
}

func (r *endlessReader) Schema() *arrow.Schema { return r.schema }

func (r *endlessReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, r.schema.NumFields())
	for c := range cols {
		bld := array.NewInt64Builder(r.mem)
		for i := range int64(endlessBatchRows) {
			bld.Append((r.next + i) % (1 << 20))
		}
		cols[c] = bld.NewArray()
		bld.Release()
	}
	r.next += endlessBatchRows
	b := array.NewRecordBatch(r.schema, cols, endlessBatchRows)
	for _, c := range cols {
		c.Release()
	}
	r.t.onBatch(r.t.batches.Add(1))
	return b, nil
}

func (r *endlessReader) Close() error { return nil }

// TestCancelMidStream: a query over an endless scan stops soon after its context is
// cancelled, returns context.Canceled, and leaves no Arrow memory, reservation or goroutine
// behind; for scan, filter/project, aggregate (serial and parallel), sort, TopN and both
// sides of a hash join.
func TestCancelMidStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	scan := func(tbl catalog.Table) plan.Node { return plan.NewScan(tbl, []int{0, 1}) }
	pipelines := map[string]func(tbl catalog.Table) plan.Node{
		"scan": scan,
		"filter-project": func(tbl catalog.Table) plan.Node {
			f := &plan.Filter{Input: scan(tbl), Cond: call("gt", bln, cref(0, i64), lit(int64(3)))}
			return plan.NewProject(f, []plan.Expr{call("add", i64, cref(0, i64), cref(1, i64))}, []string{"s"})
		},
		"aggregate": func(tbl catalog.Table) plan.Node {
			return plan.NewAggregate(scan(tbl), []plan.Expr{cref(1, i64)}, []string{"k"},
				[]plan.AggCall{aggCall("sum", i64, false, cref(0, i64)), aggCall("count", i64, true, cref(0, i64))})
		},
		"sort": func(tbl catalog.Table) plan.Node {
			return &plan.Sort{Input: scan(tbl), Keys: []plan.SortKey{{Expr: cref(0, i64), Descending: true}}}
		},
		"topn": func(tbl catalog.Table) plan.Node {
			return &plan.Limit{Input: &plan.Sort{Input: scan(tbl), Keys: []plan.SortKey{{Expr: cref(0, i64)}}}, Count: 5}
		},
		"join-build-side": func(tbl catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(tbl, []int{0}), scan(tbl), plan.InnerJoin,
				[]plan.Expr{cref(0, i64)}, []plan.Expr{cref(0, i64)}, nil)
		},
	}
	for name, mk := range pipelines {
		for _, par := range []int{1, 4} {
			for _, analyze := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/par=%d/analyze=%v", name, par, analyze), func(t *testing.T) {
					runCancelled(t, mk, flexec.Env{BatchSize: 100, Parallelism: par, Analyze: analyze})
				})
			}
		}
	}
}

func runCancelled(t *testing.T, mk func(catalog.Table) plan.Node, env flexec.Env) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env.Mem = mem
	env.Pool = flexec.NewMemoryPool(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const cancelAfter = 40 // batches made by the readers
	tbl := newEndless(func(n int64) {
		if n == cancelAfter {
			cancel()
		}
	})
	op, err := build.Build(mk(tbl), env)
	require.NoError(t, err)
	start := time.Now()
	rows, err := drain(ctx, op)
	require.Error(t, err)
	require.ErrorIs(t, err, context.Canceled, "got %v", err)
	require.Less(t, time.Since(start), 10*time.Second)
	require.Less(t, tbl.batches.Load(), int64(cancelAfter+200), "readers stop soon after the cancel")
	require.Greater(t, tbl.batches.Load(), int64(cancelAfter-1))
	require.Zero(t, env.Pool.Used(), "reservations freed")
	_ = rows
}

// drain reads op to the end the way a Flight stream does (releasing each batch as it goes)
// and closes it; it returns the rows seen and the first error.
func drain(ctx context.Context, op flexec.Operator) (rows int64, err error) {
	defer func() {
		if cerr := op.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := op.Open(ctx); err != nil {
		return 0, err
	}
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return rows, err
		}
		if b == nil {
			return rows, nil
		}
		rows += b.NumRows()
		b.Release()
	}
}
