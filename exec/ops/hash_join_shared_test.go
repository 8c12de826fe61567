package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// sharedJoin returns a Gather over workers hash joins sharing one build over right; the
// left rows are dealt round-robin to the workers in batches of batchSize.
func sharedJoin(t *testing.T, env exec.Env, spec ops.JoinSpec, ls, rs *arrow.Schema, left, right exectest.Rows, workers, batchSize int) *ops.Gather {
	t.Helper()
	build := ops.NewHashBuild(fixedSource(t, env, rs, right), spec, env, workers)
	return gatherJoins(t, env, spec, build, ls, left, workers, batchSize)
}

// gatherJoins returns a Gather over workers hash joins probing build with the rows probe
// (of schema ps), dealt round-robin to the workers in batches of batchSize.
func gatherJoins(t *testing.T, env exec.Env, spec ops.JoinSpec, build *ops.HashBuild, ps *arrow.Schema, probe exectest.Rows, workers, batchSize int) *ops.Gather {
	t.Helper()
	parts := make([]exectest.Rows, workers)
	for i := 0; i < len(probe); i += batchSize {
		w := (i / batchSize) % workers
		parts[w] = append(parts[w], probe[i:min(i+batchSize, len(probe))]...)
	}
	inputs := make([]exec.Operator, workers)
	for w := range inputs {
		bs, err := exectest.MakeBatches(env.Mem, ps, parts[w], batchSize, exectest.Hostile)
		require.NoError(t, err)
		inputs[w] = ops.NewSharedHashJoin(exectest.NewSource(ps, bs), build, spec, env)
	}
	return ops.NewGather(inputs, spec.Schema)
}

// Joins sharing one build side through a Gather return the rows of the serial join, for
// every shareable join type, worker count and batch size, without leaks.
func TestSharedHashJoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var left, right exectest.Rows
	for i := range 300 {
		var k any = int64(rng.IntN(40))
		if i%17 == 0 {
			k = nil
		}
		left = append(left, []any{k, fmt.Sprint("l", i)})
	}
	for i := range 60 {
		var k any = int64(rng.IntN(50))
		if i%23 == 0 {
			k = nil
		}
		right = append(right, []any{k, fmt.Sprint("r", i)})
	}
	types := []plan.JoinType{plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin, plan.MarkJoin}
	for _, typ := range types {
		for _, cond := range []plan.Expr{nil, sNotZ} {
			jt := joinTest{typ: typ, lKeys: aKey, rKey: bKey, cond: cond}
			spec := joinSpec(jt, lSchema, rSchema)
			want := serialJoin(t, spec, left, right)
			for _, workers := range []int{1, 2, 3} {
				for _, size := range []int{1, 7, 1000} {
					name := fmt.Sprintf("%s/cond=%v/workers=%d/batch=%d", typ, cond != nil, workers, size)
					t.Run(name, func(t *testing.T) {
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						defer mem.AssertSize(t, 0)
						env := exec.Env{Mem: mem, BatchSize: size, Parallelism: 2}.WithDefaults()
						out, err := exec.Collect(context.Background(), sharedJoin(t, env, spec, lSchema, rSchema, left, right, workers, size))
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

// serialJoin runs spec with the serial hash join.
func serialJoin(t *testing.T, spec ops.JoinSpec, left, right exectest.Rows) exectest.Rows {
	t.Helper()
	env := exec.Env{Mem: memory.NewGoAllocator()}.WithDefaults()
	h := ops.NewHashJoin(fixedSource(t, env, lSchema, left), fixedSource(t, env, rSchema, right), spec, env)
	ops.SetFlipLimit(h, -1)
	out, err := exec.Collect(context.Background(), h)
	require.NoError(t, err)
	defer releaseAll(out)
	return exectest.ToRows(out)
}

// Closing a Gather after one batch, or cancelling its context, stops the workers and
// frees every batch and the shared build (goleak in TestMain checks the goroutines), for
// a build on the right input and a flipped one on the left input.
func TestSharedHashJoinStop(t *testing.T) {
	var many, few exectest.Rows
	for i := range 5000 {
		many = append(many, []any{int64(i % 100), "x"})
	}
	for i := range 100 {
		few = append(few, []any{int64(i), "y"})
	}
	for _, flipped := range []bool{false, true} {
		for _, cancel := range []bool{false, true} {
			t.Run(fmt.Sprintf("flipped=%v/cancel=%v", flipped, cancel), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				env := exec.Env{Mem: mem, BatchSize: 10, Parallelism: 2}.WithDefaults()
				var g *ops.Gather
				if flipped {
					spec := joinSpec(joinTest{typ: plan.LeftJoin, lKeys: aKey, rKey: bKey}, lSchema, rSchema)
					g = flippedJoin(t, env, spec, few, many, 2, 10)
				} else {
					spec := joinSpec(joinTest{typ: plan.InnerJoin, lKeys: aKey, rKey: bKey}, lSchema, rSchema)
					g = sharedJoin(t, env, spec, lSchema, rSchema, many, few, 2, 10)
				}
				ctx, stop := context.WithCancel(context.Background())
				defer stop()
				require.NoError(t, g.Open(ctx))
				b, err := g.Next(ctx)
				require.NoError(t, err)
				require.Equal(t, int64(10), b.NumRows())
				b.Release()
				if cancel {
					stop()
					_, err = g.Next(ctx)
					require.ErrorIs(t, err, context.Canceled)
				}
				require.NoError(t, g.Close())
			})
		}
	}
}
