package ops_test

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// topNInput has many ties on k (and NULLs) so that stability is visible through id.
func topNInput() exectest.Rows {
	var rows exectest.Rows
	for i := range 41 {
		var k any = int64((i * 7) % 5)
		if i%9 == 4 {
			k = nil
		}
		rows = append(rows, []any{k, int64(i)})
	}
	return rows
}

// stableTop is what Sort followed by Limit gives: a stable sort on k (NULLs last, or first
// when desc as the keys say), then rows [offset, offset+count).
func stableTop(in exectest.Rows, desc bool, offset, count int) exectest.Rows {
	rows := slices.Clone(in)
	slices.SortStableFunc(rows, func(a, b []any) int {
		ka, aok := a[0].(int64)
		kb, bok := b[0].(int64)
		switch {
		case !aok && !bok:
			return 0
		case !aok:
			return 1 // NULLS LAST
		case !bok:
			return -1
		}
		if desc {
			return cmp.Compare(kb, ka)
		}
		return cmp.Compare(ka, kb)
	})
	lo, hi := min(offset, len(rows)), min(offset+count, len(rows))
	return rows[lo:hi]
}

func TestTopN(t *testing.T) {
	in := topNInput()
	sch := schema(field("k", i64), field("id", i64))
	cases := []struct {
		name          string
		desc          bool
		offset, count int
	}{
		{"top-1", false, 0, 1},
		{"top-5", false, 0, 5},
		{"top-7-desc", true, 0, 7},
		{"offset-3-count-4", false, 3, 4},
		{"offset-into-nulls", false, 35, 10},
		{"offset-past-end", false, 50, 3},
		{"count-0", false, 0, 0},
		{"all-rows", true, 0, 100},
	}
	for _, c := range cases {
		key := plan.SortKey{Expr: col(0, i64), Descending: c.desc}
		exectest.Run(t, exectest.Case{Name: c.name, Schema: sch, Input: in, Ordered: true,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewTopN(in, []plan.SortKey{key}, int64(c.offset), int64(c.count), env), nil
			},
			Expected: stableTop(in, c.desc, c.offset, c.count)})
	}
	exectest.Run(t, exectest.Case{Name: "empty", Schema: sch, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewTopN(in, []plan.SortKey{{Expr: col(0, i64)}}, 0, 3, env), nil
		}})
}

// TestTopNMemoryBounded: TopN keeps only a bounded buffer, so it runs under a limit that
// a full Sort of the same input exceeds.
func TestTopNMemoryBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sch := schema(field("k", i64), field("id", i64))
	var in exectest.Rows
	for i := range 4000 {
		in = append(in, []any{int64((i * 7919) % 1000), int64(i)})
	}
	run := func(sorted bool) error {
		env := exec.Env{Mem: mem, BatchSize: 256, Pool: exec.NewMemoryPool(32 << 10)}.WithDefaults()
		batches, err := exectest.MakeBatches(mem, sch, in, 256, exectest.Plain)
		require.NoError(t, err)
		src := exectest.NewSource(sch, batches)
		keys := []plan.SortKey{{Expr: col(0, i64)}}
		var op exec.Operator = ops.NewTopN(src, keys, 0, 10, env)
		if sorted {
			op = ops.NewLimit(ops.NewSort(src, keys, env), 0, 10)
		}
		out, err := exec.Collect(context.Background(), op)
		defer func() {
			for _, b := range out {
				b.Release()
			}
		}()
		require.Zero(t, env.Pool.Used(), "reservations freed on close")
		if err == nil {
			exectest.RequireRows(t, stableTop(in, false, 0, 10), exectest.ToRows(out), true)
		}
		return err
	}
	require.NoError(t, run(false))
	err := run(true)
	require.Error(t, err)
	kind, _ := dberr.KindOf(err)
	require.Equal(t, dberr.OutOfMemory, kind)
	require.ErrorIs(t, err, exec.ErrMemoryLimit)
	require.Contains(t, err.Error(), "sort could not reserve")
}
