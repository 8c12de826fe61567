package ops_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// flatKey is one row's (int32, int64) key; ok is false when a key is NULL.
type flatKey struct {
	a  int32
	b  int64
	ok bool
}

// flatRows returns n random rows (a int32, b int64, id int64) with keys drawn from
// [0, domain) times scale and about 1% NULL keys, as batches of batchSize rows.
func flatRows(t *testing.T, mem memory.Allocator, rng *rand.Rand, n, domain, batchSize int, scale int32) ([]arrow.RecordBatch, []flatKey) {
	keys := make([]flatKey, n)
	for i := range keys {
		keys[i] = flatKey{a: int32(rng.IntN(domain)) * scale, b: int64(rng.IntN(4)) << 40, ok: rng.IntN(100) != 0}
	}
	return flatBatches(t, mem, keys, batchSize), keys
}

// flatBatches returns rows (a int32, b int64, id int64) with keys (a NULL when !ok) and
// ids 0, 1, ..., as batches of batchSize rows.
func flatBatches(t *testing.T, mem memory.Allocator, keys []flatKey, batchSize int) []arrow.RecordBatch {
	t.Helper()
	s := schema(field("a", i32), field("b", i64), field("id", i64))
	bld := array.NewRecordBuilder(mem, s)
	defer bld.Release()
	var batches []arrow.RecordBatch
	for i, k := range keys {
		if k.ok {
			bld.Field(0).(*array.Int32Builder).Append(k.a)
		} else {
			bld.Field(0).AppendNull()
		}
		bld.Field(1).(*array.Int64Builder).Append(k.b)
		bld.Field(2).(*array.Int64Builder).Append(int64(i))
		if (i+1)%batchSize == 0 || i == len(keys)-1 {
			batches = append(batches, bld.NewRecordBatch())
		}
	}
	return batches
}

// TestHashJoinFlatDifferential joins random multi-key inputs large enough for a
// partitioned parallel build and checks each join type's row count and id sum against a
// Go map: inner joins count pairs, semi and anti joins sum left ids, with the flip on and
// off.
func TestHashJoinFlatDifferential(t *testing.T) {
	cases := []struct {
		typ      plan.JoinType
		lRows    int
		flip     int64
		keys     int
		parallel int
		scale    int32 // 1: one key's values are dense (hash_join_dense.go); 5003: sparse
	}{
		{plan.InnerJoin, 3000, -1, 2, 2, 1},
		{plan.InnerJoin, 3000, -1, 1, 2, 1},
		{plan.InnerJoin, 3000, -1, 1, 2, 5003},
		{plan.InnerJoin, 3000, -1, 1, 1, 1},
		{plan.InnerJoin, 3000, -1, 1, 1, 5003},
		{plan.SemiJoin, 3000, -1, 2, 2, 1},
		{plan.SemiJoin, 3000, 1 << 20, 2, 2, 1},
		{plan.AntiJoin, 3000, -1, 1, 2, 1},
		{plan.AntiJoin, 3000, -1, 1, 2, 5003},
		{plan.AntiJoin, 3000, 1 << 20, 1, 2, 1},
		{plan.SemiJoin, 3000, 1 << 20, 1, 2, 5003},
		{plan.AntiJoin, 3000, 1000, 2, 1, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/keys=%d/flip=%d/par=%d/scale=%d", c.typ, c.keys, c.flip, c.parallel, c.scale), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			env := exec.Env{Mem: mem, BatchSize: 4096, Parallelism: c.parallel}.WithDefaults()
			rng := rand.New(rand.NewPCG(uint64(c.keys), uint64(c.typ)))
			lb, lk := flatRows(t, mem, rng, c.lRows, 50000, 512, c.scale)
			rb, rk := flatRows(t, mem, rng, 200000, 50000, 8192, c.scale)
			s := lb[0].Schema()
			keys := []plan.Expr{col(0, i32), col(1, i64)}[:c.keys]
			jt := joinTest{typ: c.typ, lKeys: keys, rKey: keys}
			spec := joinSpec(jt, s, s)
			h := ops.NewHashJoin(exectest.NewSource(s, lb), exectest.NewSource(s, rb), spec, env)
			ops.SetFlipLimit(h, c.flip)
			out, err := exec.Collect(context.Background(), h)
			require.NoError(t, err)
			gotRows, gotSum := int64(0), int64(0)
			for _, b := range out {
				gotRows += b.NumRows()
				for _, v := range b.Column(2).(*array.Int64).Int64Values() {
					gotSum += v
				}
				b.Release()
			}
			wantRows, wantSum := expectFlat(c.typ, c.keys, lk, rk)
			require.Equal(t, wantRows, gotRows)
			require.Equal(t, wantSum, gotSum)
		})
	}
}

// expectFlat computes the row count and the sum of the left ids of a join of l and r.
func expectFlat(typ plan.JoinType, nkeys int, l, r []flatKey) (rows, sum int64) {
	key := func(k flatKey) flatKey {
		if nkeys == 1 {
			k.b = 0
		}
		return k
	}
	count := map[flatKey]int64{}
	for _, k := range r {
		if k.ok {
			count[key(k)]++
		}
	}
	for i, k := range l {
		n := int64(0)
		if k.ok {
			n = count[key(k)]
		}
		switch {
		case typ == plan.InnerJoin:
			rows, sum = rows+n, sum+n*int64(i)
		case typ == plan.SemiJoin && n > 0, typ == plan.AntiJoin && n == 0:
			rows, sum = rows+1, sum+int64(i)
		}
	}
	return rows, sum
}

// Two-key rows whose hashes collide (the second key cancels the first's hash, see
// hashKeys) must still only match rows with equal keys.
func TestHashJoinFlatCollision(t *testing.T) {
	mul := uint64(0x9E3779B97F4A7C15) // the hash multiplier
	collide := int64(1*mul ^ 2*mul)
	s := schema(field("a", i64), field("b", i64))
	keys := []plan.Expr{col(0, i64), col(1, i64)}
	left := exectest.Rows{{int64(1), int64(0)}, {int64(2), collide}}
	right := exectest.Rows{{int64(2), collide}, {int64(1), int64(0)}, {int64(3), int64(0)}}
	jt := joinTest{name: "collision", typ: plan.InnerJoin, lKeys: keys, rKey: keys}
	spec := joinSpec(jt, s, s)
	exectest.Run(t, exectest.Case{
		Name: jt.name, Schema: s, Input: left,
		Expected: exectest.Rows{{int64(1), int64(0), int64(1), int64(0)}, {int64(2), collide, int64(2), collide}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewHashJoin(in, fixedSource(t, env, s, right), spec, env), nil
		},
	})
}

// TestHashJoinFlatUnique builds on keys that are all distinct (a primary key: every chain
// is one row, which probes then do not follow) and checks inner and left joins against a
// Go map, with one and two keys, serial and partitioned builds, and a build side where one
// key repeats (chains again).
func TestHashJoinFlatUnique(t *testing.T) {
	cases := []struct {
		typ      plan.JoinType
		keys     int
		parallel int
		repeat   bool
		scale    int32 // 1: dense keys (hash_join_dense.go); 5003: sparse (flatPart)
	}{
		{plan.InnerJoin, 1, 1, false, 1},
		{plan.InnerJoin, 1, 1, false, 5003},
		{plan.InnerJoin, 1, 2, false, 5003},
		{plan.InnerJoin, 2, 2, false, 1},
		{plan.LeftJoin, 1, 2, false, 1},
		{plan.LeftJoin, 1, 2, false, 5003},
		{plan.InnerJoin, 1, 2, true, 1},
		{plan.InnerJoin, 1, 2, true, 5003},
		{plan.InnerJoin, 2, 1, true, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/keys=%d/par=%d/repeat=%v/scale=%d", c.typ, c.keys, c.parallel, c.repeat, c.scale), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			env := exec.Env{Mem: mem, BatchSize: 1000, Parallelism: c.parallel}.WithDefaults()
			rng := rand.New(rand.NewPCG(uint64(c.keys), 7))
			lb, lk := flatRows(t, mem, rng, 5000, 300000, 700, c.scale)
			rb, rk := uniqueRows(t, mem, rng, 200000, c.repeat, c.scale)
			s := lb[0].Schema()
			keys := []plan.Expr{col(0, i32), col(1, i64)}[:c.keys]
			spec := joinSpec(joinTest{typ: c.typ, lKeys: keys, rKey: keys}, s, s)
			h := ops.NewHashJoin(exectest.NewSource(s, lb), exectest.NewSource(s, rb), spec, env)
			out, err := exec.Collect(context.Background(), h)
			require.NoError(t, err)
			gotRows, gotSum, gotMatched := int64(0), int64(0), int64(0)
			for _, b := range out {
				gotRows += b.NumRows()
				ids, rids := b.Column(2).(*array.Int64), b.Column(5)
				for i, v := range ids.Int64Values() {
					gotSum += v
					if rids.IsValid(i) {
						gotMatched++
					}
				}
				b.Release()
			}
			wantRows, wantSum := expectFlat(plan.InnerJoin, c.keys, lk, rk)
			wantMatched := wantRows
			if c.typ == plan.LeftJoin {
				_, unmatchedSum := expectFlat(plan.AntiJoin, c.keys, lk, rk)
				unmatched, _ := expectFlat(plan.AntiJoin, c.keys, lk, rk)
				wantRows, wantSum = wantRows+unmatched, wantSum+unmatchedSum
			}
			require.Equal(t, wantRows, gotRows)
			require.Equal(t, wantSum, gotSum)
			require.Equal(t, wantMatched, gotMatched)
		})
	}
}

// uniqueRows returns n rows with distinct keys (a: a shuffled 0..n-1 times scale, about 1%
// NULL; b: 0) in batches of 8192 rows; with repeat, the last row repeats the first row's
// key.
func uniqueRows(t *testing.T, mem memory.Allocator, rng *rand.Rand, n int, repeat bool, scale int32) ([]arrow.RecordBatch, []flatKey) {
	perm := rng.Perm(n)
	keys := make([]flatKey, n)
	for i := range keys {
		keys[i] = flatKey{a: int32(perm[i]) * scale, ok: rng.IntN(100) != 0}
	}
	if repeat {
		keys[n-1] = keys[0]
	}
	return flatBatches(t, mem, keys, 8192), keys
}
