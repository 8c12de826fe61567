package ops_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

var scanSchema = schema(field("id", i64), field("name", str), field("v", f64))

// scanRows returns n rows (id, name, v) with a NULL name every 7th row.
func scanRows(n int) exectest.Rows {
	rows := make(exectest.Rows, n)
	for i := range n {
		var name any = fmt.Sprintf("n%03d", i)
		if i%7 == 3 {
			name = nil
		}
		rows[i] = []any{i, name, float64(i) / 4}
	}
	return rows
}

// slowTable delays the scan of early morsels, so that parallel workers finish out of order.
type slowTable struct {
	*memcat.Table
	failMorsel int // index of a morsel whose scan fails; -1: none
	morsels    []catalog.Morsel
}

func (s *slowTable) Morsels(ctx context.Context, req catalog.ScanRequest) ([]catalog.Morsel, error) {
	ms, err := s.Table.Morsels(ctx, req)
	s.morsels = ms
	return ms, err
}

var errInjected = errors.New("injected scan failure")

func (s *slowTable) Scan(ctx context.Context, req catalog.ScanRequest, m catalog.Morsel, mem memory.Allocator) (catalog.RecordReader, error) {
	for i, x := range s.morsels {
		if x == m {
			if i == s.failMorsel {
				return nil, errInjected
			}
			select {
			case <-time.After(time.Duration(max(0, 4-i)) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return s.Table.Scan(ctx, req, m, mem)
}

// newScanTable builds a memcat table of rows split into batches of batchRows rows and
// morsels of morselRows rows. The caller releases the catalog.
func newScanTable(t *testing.T, mem memory.Allocator, rows exectest.Rows, batchRows int, morselRows int64) (*memcat.Catalog, *slowTable) {
	t.Helper()
	cat := memcat.New(memcat.WithMorselRows(morselRows))
	bs, err := exectest.MakeBatches(mem, scanSchema, rows, batchRows, exectest.Hostile)
	require.NoError(t, err)
	require.NoError(t, cat.AddTable("t", scanSchema, bs...))
	for _, b := range bs {
		b.Release()
	}
	tbl, err := cat.LoadTable(context.Background(), "t", catalog.VersionRef{})
	require.NoError(t, err)
	return cat, &slowTable{Table: tbl.(*memcat.Table), failMorsel: -1}
}

func TestScan(t *testing.T) {
	rows := scanRows(50)
	project := func(cols ...int) exectest.Rows {
		out := make(exectest.Rows, len(rows))
		for i, r := range rows {
			for _, c := range cols {
				out[i] = append(out[i], r[c])
			}
		}
		return out
	}
	cases := []struct {
		name   string
		cols   []int
		filter plan.Expr
		limit  int64
		want   exectest.Rows
	}{
		{"all", []int{0, 1, 2}, nil, -1, rows},
		{"reordered-columns", []int{2, 0}, nil, -1, project(2, 0)},
		{"limit", []int{0}, nil, 7, project(0)[:7]},
		{"limit-0", []int{0}, nil, 0, nil},
		{"filter", []int{1, 0}, call("gte", bln, col(1, i64), lit(int64(45))), -1, project(1, 0)[45:]},
		{"filter-limit", []int{0}, call("is_null", bln, col(0, i64)), 3, nil},
		{"filter-null-name-limit", []int{1, 0}, call("is_null", bln, col(0, str)), 2, exectest.Rows{{nil, 3}, {nil, 10}}},
	}
	for _, par := range []int{1, 2, 4} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/par=%d", c.name, par), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				cat, tbl := newScanTable(t, mem, rows, 16, 5)
				defer cat.Release()
				n := plan.NewScan(tbl, c.cols)
				n.Filter, n.Limit = c.filter, c.limit
				env := exec.Env{Mem: mem, BatchSize: 3, Parallelism: par}
				out, err := exec.Collect(context.Background(), ops.NewScan(n, env))
				require.NoError(t, err)
				defer releaseAll(out)
				for _, b := range out {
					require.LessOrEqual(t, b.NumRows(), int64(3))
					require.True(t, b.Schema().Equal(n.Schema()))
				}
				exectest.RequireRows(t, c.want, exectest.ToRows(out), true)
			})
		}
	}
}

// The shards of a scan partition its rows: together, in shard order per morsel, they give
// every row exactly once.
func TestScanShards(t *testing.T) {
	rows := scanRows(37)
	for _, count := range []int{1, 2, 3, 5, 20} {
		t.Run(strconv.Itoa(count), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			cat, tbl := newScanTable(t, mem, rows, 10, 3) // 13 morsels
			defer cat.Release()
			seen := map[int64]int{}
			for idx := range count {
				n := plan.NewScan(tbl, []int{0})
				n.Shard = plan.Shard{Index: idx, Count: count}
				out, err := exec.Collect(context.Background(), ops.NewScan(n, exec.Env{Mem: mem, Parallelism: 2}))
				require.NoError(t, err)
				for _, r := range exectest.ToRows(out) {
					seen[r[0].(int64)]++
				}
				releaseAll(out)
			}
			require.Len(t, seen, len(rows))
			for id, n := range seen {
				require.Equal(t, 1, n, "row %d read %d times", id, n)
			}
		})
	}
}

func TestScanNoColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newScanTable(t, mem, scanRows(23), 10, 4)
	defer cat.Release()
	out, err := exec.Collect(context.Background(), ops.NewScan(plan.NewScan(tbl, nil), exec.Env{Mem: mem, Parallelism: 3}))
	require.NoError(t, err)
	defer releaseAll(out)
	var total int64
	for _, b := range out {
		require.EqualValues(t, 0, b.NumCols())
		total += b.NumRows()
	}
	require.EqualValues(t, 23, total)
}

func TestScanCloseMidStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, par := range []int{1, 2, 8} {
		t.Run(strconv.Itoa(par), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			cat, tbl := newScanTable(t, mem, scanRows(200), 16, 2)
			defer cat.Release()
			op := ops.NewScan(plan.NewScan(tbl, []int{0, 1}), exec.Env{Mem: mem, BatchSize: 1, Parallelism: par})
			ctx := context.Background()
			require.NoError(t, op.Open(ctx))
			b, err := op.Next(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 0, b.Column(0).(interface{ Value(int) int64 }).Value(0))
			b.Release()
			require.NoError(t, op.Close())
			require.NoError(t, op.Close()) // idempotent
		})
	}
}

func TestScanCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, tbl := newScanTable(t, mem, scanRows(100), 16, 2)
	defer cat.Release()
	ctx, cancel := context.WithCancel(context.Background())
	op := ops.NewScan(plan.NewScan(tbl, []int{0}), exec.Env{Mem: mem, Parallelism: 4})
	require.NoError(t, op.Open(ctx))
	b, err := op.Next(ctx)
	require.NoError(t, err)
	b.Release()
	cancel()
	_, err = op.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, op.Close())
}

func TestScanError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, par := range []int{1, 3} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		cat, tbl := newScanTable(t, mem, scanRows(40), 16, 4)
		tbl.failMorsel = 5
		_, err := exec.Collect(context.Background(), ops.NewScan(plan.NewScan(tbl, []int{0}), exec.Env{Mem: mem, Parallelism: par}))
		require.ErrorIs(t, err, errInjected)
		cat.Release()
		mem.AssertSize(t, 0)
	}
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// Morsels of many batches stream through their workers' bounded slots: every row arrives
// once and in table order, and closing part-way (workers blocked on full slots) leaks
// neither goroutines nor batches.
func TestScanStreamsLargeMorsels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, stopAfter := range []int{-1, 0, 1, 9, 40} {
		for _, par := range []int{2, 3} {
			t.Run(fmt.Sprintf("stop=%d/par=%d", stopAfter, par), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				cat, tbl := newScanTable(t, mem, scanRows(300), 4, 60) // 5 morsels of 15 batches
				defer cat.Release()
				op := ops.NewScan(plan.NewScan(tbl, []int{0}), exec.Env{Mem: mem, BatchSize: 4, Parallelism: par})
				ctx := context.Background()
				require.NoError(t, op.Open(ctx))
				next := int64(0)
				for batches := 0; stopAfter < 0 || batches < stopAfter; batches++ {
					b, err := op.Next(ctx)
					require.NoError(t, err)
					if b == nil {
						break
					}
					ids := b.Column(0).(interface{ Value(int) int64 })
					for i := range int(b.NumRows()) {
						require.Equal(t, next, ids.Value(i))
						next++
					}
					b.Release()
				}
				if stopAfter < 0 {
					require.EqualValues(t, 300, next)
				} else {
					require.EqualValues(t, min(300, 4*stopAfter), next)
				}
				require.NoError(t, op.Close())
			})
		}
	}
}

// concurrencyTable tracks how many of its readers are open at once; each reader's batch
// takes a few milliseconds, as a decode would.
type concurrencyTable struct {
	*memcat.Table
	open, most atomic.Int32
}

func (c *concurrencyTable) Scan(ctx context.Context, req catalog.ScanRequest, m catalog.Morsel, mem memory.Allocator) (catalog.RecordReader, error) {
	rd, err := c.Table.Scan(ctx, req, m, mem)
	if err != nil {
		return nil, err
	}
	n := c.open.Add(1)
	for {
		old := c.most.Load()
		if n <= old || c.most.CompareAndSwap(old, n) {
			break
		}
	}
	return &slowReader{RecordReader: rd, t: c}, nil
}

type slowReader struct {
	catalog.RecordReader
	t      *concurrencyTable
	closed bool
}

func (r *slowReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	time.Sleep(3 * time.Millisecond)
	return r.RecordReader.Next(ctx)
}

func (r *slowReader) Close() error {
	if !r.closed {
		r.closed = true
		r.t.open.Add(-1)
	}
	return r.RecordReader.Close()
}

// One large morsel is read by every worker at once, in ranges of a slot's worth of
// batches, and still comes out in table order.
func TestScanSplitsLargeMorsels(t *testing.T) {
	rows := scanRows(400)
	for _, par := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("par=%d", par), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			cat, tbl := newScanTable(t, mem, rows, 400, 400) // one fragment, one morsel
			defer cat.Release()
			ct := &concurrencyTable{Table: tbl.Table}
			op := ops.NewScan(plan.NewScan(ct, []int{0, 1, 2}), exec.Env{Mem: mem, BatchSize: 10, Parallelism: par})
			out, err := exec.Collect(context.Background(), op)
			require.NoError(t, err)
			defer releaseAll(out)
			exectest.RequireRows(t, rows, exectest.ToRows(out), true)
			require.Equal(t, int32(par), ct.most.Load())
			require.Zero(t, ct.open.Load())
		})
	}
}
