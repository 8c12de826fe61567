package build_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
	flexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/planner/plan"
)

// TestJoinOutputSlicesChargedByRows: join outputs taken as zero-copy slices (takeRows)
// hold their whole source batch, which operators reserving their input (Sort, TopN, shared
// results) charge in full; a sort over a 1:1 key join of 200k rows (a few MB of data) must
// fit a limit a few times its data, so short runs of a large build batch are copied.
func TestJoinOutputSlicesChargedByRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 200_000
	cat := memcat.New()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64}, {Name: "v", Type: i64}}, nil)
	for _, name := range []string{"p", "b"} {
		var bs []arrow.RecordBatch
		for lo := 0; lo < n; lo += 8192 {
			kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
			for i := lo; i < min(lo+8192, n); i++ {
				kb.Append(int64(i))
				vb.Append(int64(i * 7))
			}
			k, v := kb.NewArray(), vb.NewArray()
			bs = append(bs, array.NewRecordBatch(sc, []arrow.Array{k, v}, int64(k.Len())))
			k.Release()
			v.Release()
			kb.Release()
			vb.Release()
		}
		require.NoError(t, cat.AddTable(name, sc, bs...))
		for _, b := range bs {
			b.Release()
		}
	}
	defer cat.Release()
	load := func(name string) catalog.Table {
		tb, err := cat.LoadTable(context.Background(), name, catalog.VersionRef{})
		require.NoError(t, err)
		return tb
	}
	p, b := load("p"), load("b")
	data := int64(n * 4 * 8) // the join's output: four int64 columns
	mk := func() plan.Node {
		j := plan.NewJoin(plan.NewScan(p, []int{0, 1}), plan.NewScan(b, []int{0, 1}), plan.InnerJoin,
			[]plan.Expr{cref(0, i64)}, []plan.Expr{cref(0, i64)}, nil)
		return &plan.Sort{Input: j, Keys: []plan.SortKey{{Expr: cref(0, i64), Descending: true}}}
	}
	// With a limit of 8x the data, the sort must still fit.
	env := flexec.Env{Mem: mem, Parallelism: 1, Pool: flexec.NewMemoryPool(8 * data)}
	_, err := drain(context.Background(), mustBuild(t, mk(), env))
	require.NoError(t, err)
	env = flexec.Env{Mem: mem, Parallelism: 1, Pool: flexec.NewMemoryPool(0)}
	rows, err := drain(context.Background(), mustBuild(t, mk(), env))
	require.NoError(t, err)
	require.Equal(t, int64(n), rows)
	t.Logf("pool peak %d bytes for %d bytes of join output", env.Pool.Peak(), data)
	require.Less(t, env.Pool.Peak(), 4*data, fmt.Sprintf("peak %d", env.Pool.Peak()))
}

func mustBuild(t *testing.T, n plan.Node, env flexec.Env) flexec.Operator {
	t.Helper()
	op, err := build.Build(n, env)
	require.NoError(t, err)
	return op
}
