package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// filteredJoinRows runs an inner join of left keys 0..n-1 with right keys 0, 60, 120, ... under a
// pool of limit bytes, with or without a run-time filter; it returns the rows and the
// pool's peak.
func filteredJoinRows(t *testing.T, mem memory.Allocator, limit int64, filter bool) (int64, int64, error) {
	const n = 40000
	s := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var lr, rr exectest.Rows
	for i := range n {
		lr = append(lr, []any{int64(i)})
		rr = append(rr, []any{int64(i * 60)})
	}
	env := exec.Env{Mem: mem, BatchSize: 4096, Parallelism: 1, Pool: exec.NewMemoryPool(limit), MemoryLimit: limit}
	lb, err := exectest.MakeBatches(mem, s, lr, 4096, exectest.Plain)
	require.NoError(t, err)
	rb, err := exectest.MakeBatches(mem, s, rr, 4096, exectest.Plain)
	require.NoError(t, err)
	k := col(0, arrow.PrimitiveTypes.Int64)
	j := plan.NewJoin(plan.NewValues(s, nil), plan.NewValues(s, nil), plan.InnerJoin, []plan.Expr{k}, []plan.Expr{k}, nil)
	spec := ops.JoinSpec{Type: plan.InnerJoin, LeftKeys: []plan.Expr{k}, RightKeys: []plan.Expr{k}, Schema: j.Schema()}
	h := ops.NewHashJoin(exectest.NewSource(s, lb), exectest.NewSource(s, rb), spec, env)
	if filter {
		h.SetRuntimeFilters(ops.NewRuntimeFilter(0), nil)
	}
	ctx := context.Background()
	require.NoError(t, h.Open(ctx))
	defer h.Close()
	var rows int64
	for {
		b, err := h.Next(ctx)
		if err != nil {
			return rows, env.Pool.Peak(), err
		}
		if b == nil {
			return rows, env.Pool.Peak(), nil
		}
		rows += b.NumRows()
		b.Release()
	}
}

// TestRuntimeFilterNeverFailsJoin: the filter is reserved after the hash table, best effort,
// so a join that fits its memory limit without a filter also fits with one.
func TestRuntimeFilterNeverFailsJoin(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows, peak, err := filteredJoinRows(t, mem, 0, false)
	require.NoError(t, err)
	require.Equal(t, int64(667), rows)
	rows, _, err = filteredJoinRows(t, mem, peak, false)
	require.NoError(t, err, "fits without the filter")
	require.Equal(t, int64(667), rows)
	rows, _, err = filteredJoinRows(t, mem, peak, true)
	require.NoError(t, err, "the same join with a run-time filter, same limit")
	require.Equal(t, int64(667), rows)
}
