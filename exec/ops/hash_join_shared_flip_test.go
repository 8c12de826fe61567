package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// flippedJoin returns a Gather over workers hash joins sharing one build over left (the
// flipped form); the right rows are dealt round-robin to the workers in batches of
// batchSize.
func flippedJoin(t *testing.T, env exec.Env, spec ops.JoinSpec, left, right exectest.Rows, workers, batchSize int) *ops.Gather {
	t.Helper()
	build := ops.NewFlippedHashBuild(fixedSource(t, env, lSchema, left), spec, env, workers)
	return gatherJoins(t, env, spec, build, rSchema, right, workers, batchSize)
}

// randomJoinRows returns n rows (key in [0, domain) or NULL, short string or NULL).
func randomJoinRows(rng *rand.Rand, n, domain int) exectest.Rows {
	var rows exectest.Rows
	for i := range n {
		var k, s any = int64(rng.IntN(domain)), fmt.Sprint(rng.IntN(4))
		if i%17 == 0 {
			k = nil
		}
		if i%13 == 0 {
			s = nil
		}
		rows = append(rows, []any{k, s})
	}
	return rows
}

// Semi, anti and left joins building on their left input, probed by several workers
// with the right input, return the rows of the serial (unflipped) join, with and without
// a condition (one that is NULL for some pairs), for several worker counts and batch
// sizes, without leaks.
func TestFlippedSharedHashJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	left, right := randomJoinRows(rng, 80, 60), randomJoinRows(rng, 400, 50)
	sNotT := call("not_equal", bln, col(1, str), col(3, str))
	for _, typ := range []plan.JoinType{plan.SemiJoin, plan.AntiJoin, plan.LeftJoin} {
		for _, cond := range []plan.Expr{nil, sNotZ, sNotT} {
			spec := joinSpec(joinTest{typ: typ, lKeys: aKey, rKey: bKey, cond: cond}, lSchema, rSchema)
			want := serialJoin(t, spec, left, right)
			require.NotEmpty(t, want)
			for _, workers := range []int{1, 2, 3} {
				for _, size := range []int{1, 7, 1000} {
					name := fmt.Sprintf("%s/cond=%v/workers=%d/batch=%d", typ, cond, workers, size)
					t.Run(name, func(t *testing.T) {
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						defer mem.AssertSize(t, 0)
						env := exec.Env{Mem: mem, BatchSize: size, Parallelism: 2}.WithDefaults()
						out, err := exec.Collect(context.Background(), flippedJoin(t, env, spec, left, right, workers, size))
						require.NoError(t, err)
						got := exectest.ToRows(out)
						releaseAll(out)
						exectest.RequireRows(t, want, got, false)
					})
				}
			}
		}
	}
}

// A flipped build refuses join types whose build rows it cannot emit (inner joins).
func TestFlippedSharedHashJoinType(t *testing.T) {
	require.False(t, ops.FlippedJoinType(plan.InnerJoin))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem}.WithDefaults()
	rows := exectest.Rows{{int64(1), "a"}}
	_, err := exec.Collect(context.Background(), flippedJoin(t, env,
		joinSpec(joinTest{typ: plan.InnerJoin, lKeys: aKey, rKey: bKey}, lSchema, rSchema), rows, rows, 2, 10))
	require.Error(t, err)
}
