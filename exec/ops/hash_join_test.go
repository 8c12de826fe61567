package ops_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// The join fixture; expected results below were produced by DuckDB 2.0 over
//
//	L(a, s) = (1,'x'), (2,'y'), (2,'z'), (NULL,'n'), (5,NULL)
//	R(b, t) = (2,'p'), (2,'q'), (3,'r'), (NULL,'m'), (1,'o')
var (
	lSchema = schema(field("a", i64), field("s", str))
	rSchema = schema(field("b", i64), field("t", str))
	lRows   = exectest.Rows{{1, "x"}, {2, "y"}, {2, "z"}, {nil, "n"}, {5, nil}}
	rRows   = exectest.Rows{{2, "p"}, {2, "q"}, {3, "r"}, {nil, "m"}, {1, "o"}}
)

// joinTest is one join over the fixture; keys nil means a nested-loop join.
type joinTest struct {
	name        string
	typ         plan.JoinType
	lKeys, rKey []plan.Expr
	cond        plan.Expr
	want        exectest.Rows
}

func joinSpec(jt joinTest, ls, rs *arrow.Schema) ops.JoinSpec {
	j := plan.NewJoin(plan.NewValues(ls, nil), plan.NewValues(rs, nil), jt.typ, jt.lKeys, jt.rKey, jt.cond)
	return ops.JoinSpec{Type: jt.typ, LeftKeys: jt.lKeys, RightKeys: jt.rKey, Cond: jt.cond, Schema: j.Schema()}
}

func newJoin(left, right exec.Operator, spec ops.JoinSpec, env exec.Env) exec.Operator {
	return newJoinFlip(left, right, spec, env, -1)
}

// newJoinFlip is newJoin with the hash join's flip limit (semi and anti joins build on
// left inputs of at most flip rows; -1: never).
func newJoinFlip(left, right exec.Operator, spec ops.JoinSpec, env exec.Env, flip int64) exec.Operator {
	if len(spec.LeftKeys) == 0 {
		return ops.NewNestedLoopJoin(left, right, spec, env)
	}
	h := ops.NewHashJoin(left, right, spec, env)
	ops.SetFlipLimit(h, flip)
	return h
}

// flipLimits are the flip limits runJoin tries: never, after one or two rows read (the
// rows read are replayed) and always (the fixture is small).
var flipLimits = []int64{-1, 1, 1 << 20}

// fixedSource returns a source over rows in batches of env's batch size.
func fixedSource(t *testing.T, env exec.Env, s *arrow.Schema, rows exectest.Rows) *exectest.Source {
	bs, err := exectest.MakeBatches(env.Mem, s, rows, env.BatchSize, exectest.Plain)
	require.NoError(t, err)
	return exectest.NewSource(s, bs)
}

// runJoin runs jt twice through the harness: once with the left input replayed by the
// harness (batch sizes, hostile layout) and once with the right input replayed.
func runJoin(t *testing.T, jt joinTest) {
	t.Helper()
	spec := joinSpec(jt, lSchema, rSchema)
	for _, flip := range flipLimits {
		name := fmt.Sprintf("%s/flip=%d", jt.name, flip)
		exectest.Run(t, exectest.Case{
			Name: name + "/probe", Schema: lSchema, Input: lRows, Expected: jt.want,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return newJoinFlip(in, fixedSource(t, env, rSchema, rRows), spec, env, flip), nil
			},
		})
		exectest.Run(t, exectest.Case{
			Name: name + "/build", Schema: rSchema, Input: rRows, Expected: jt.want,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return newJoinFlip(fixedSource(t, env, lSchema, lRows), in, spec, env, flip), nil
			},
		})
		if jt.typ != plan.SemiJoin && jt.typ != plan.AntiJoin {
			return
		}
	}
}

var (
	aKey      = []plan.Expr{col(0, i64)}
	bKey      = []plan.Expr{col(0, i64)}
	sNotZ     = call("not_equal", bln, col(1, str), lit("z"))
	innerRows = exectest.Rows{{1, "x", 1, "o"}, {2, "y", 2, "p"}, {2, "y", 2, "q"}, {2, "z", 2, "p"}, {2, "z", 2, "q"}}
	lUnmatch  = exectest.Rows{{nil, "n", nil, nil}, {5, nil, nil, nil}}
	rUnmatch  = exectest.Rows{{nil, nil, 3, "r"}, {nil, nil, nil, "m"}}
)

func concat(parts ...exectest.Rows) exectest.Rows {
	var out exectest.Rows
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestHashJoin(t *testing.T) {
	condPairs := exectest.Rows{{1, "x", 1, "o"}, {2, "y", 2, "p"}, {2, "y", 2, "q"}}
	tests := []joinTest{
		{"inner", plan.InnerJoin, aKey, bKey, nil, innerRows},
		{"left", plan.LeftJoin, aKey, bKey, nil, concat(innerRows, lUnmatch)},
		{"right", plan.RightJoin, aKey, bKey, nil, concat(innerRows, rUnmatch)},
		{"full", plan.FullJoin, aKey, bKey, nil, concat(innerRows, lUnmatch, rUnmatch)},
		{"semi", plan.SemiJoin, aKey, bKey, nil, exectest.Rows{{1, "x"}, {2, "y"}, {2, "z"}}},
		{"anti", plan.AntiJoin, aKey, bKey, nil, exectest.Rows{{nil, "n"}, {5, nil}}},
		// a IN (SELECT b FROM R): NULL for 5 (R holds a NULL) and for NULL.
		{"mark", plan.MarkJoin, aKey, bKey, nil,
			exectest.Rows{{1, "x", true}, {2, "y", true}, {2, "z", true}, {nil, "n", nil}, {5, nil, nil}}},
		{"inner-cond", plan.InnerJoin, aKey, bKey, sNotZ, condPairs},
		{"full-cond", plan.FullJoin, aKey, bKey, sNotZ,
			concat(condPairs, exectest.Rows{{2, "z", nil, nil}}, lUnmatch, rUnmatch)},
		{"semi-cond", plan.SemiJoin, aKey, bKey, sNotZ, exectest.Rows{{1, "x"}, {2, "y"}}},
		{"anti-cond", plan.AntiJoin, aKey, bKey, sNotZ, exectest.Rows{{2, "z"}, {nil, "n"}, {5, nil}}},
		// a IN (SELECT b FROM R WHERE s <> 'z'): the residual filters like a WHERE.
		{"mark-cond", plan.MarkJoin, aKey, bKey, sNotZ,
			exectest.Rows{{1, "x", true}, {2, "y", true}, {2, "z", false}, {nil, "n", nil}, {5, nil, false}}},
		// Two keys, one of them an expression: (a, a+1) = (b, b+1).
		{"two-keys", plan.InnerJoin,
			[]plan.Expr{col(0, i64), call("add", i64, col(0, i64), lit(int64(1)))},
			[]plan.Expr{col(0, i64), call("add", i64, col(0, i64), lit(int64(1)))}, nil, innerRows},
	}
	for _, jt := range tests {
		runJoin(t, jt)
	}
}

func TestNestedLoopJoin(t *testing.T) {
	aLtB := call("lt", bln, col(0, i64), col(2, i64))
	inner := exectest.Rows{{1, "x", 2, "p"}, {1, "x", 2, "q"}, {1, "x", 3, "r"}, {2, "y", 3, "r"}, {2, "z", 3, "r"}}
	var cross exectest.Rows
	for _, l := range lRows {
		for _, r := range rRows {
			cross = append(cross, []any{l[0], l[1], r[0], r[1]})
		}
	}
	tests := []joinTest{
		{"cross", plan.CrossJoin, nil, nil, nil, cross},
		{"inner", plan.InnerJoin, nil, nil, aLtB, inner},
		{"left", plan.LeftJoin, nil, nil, aLtB, concat(inner, exectest.Rows{{5, nil, nil, nil}, {nil, "n", nil, nil}})},
		{"right", plan.RightJoin, nil, nil, aLtB, concat(inner, exectest.Rows{{nil, nil, 1, "o"}, {nil, nil, nil, "m"}})},
		{"full", plan.FullJoin, nil, nil, aLtB, concat(inner, exectest.Rows{{5, nil, nil, nil}, {nil, "n", nil, nil},
			{nil, nil, 1, "o"}, {nil, nil, nil, "m"}})},
		{"semi", plan.SemiJoin, nil, nil, aLtB, exectest.Rows{{1, "x"}, {2, "y"}, {2, "z"}}},
		{"anti", plan.AntiJoin, nil, nil, aLtB, exectest.Rows{{5, nil}, {nil, "n"}}},
		// a < ANY (SELECT b FROM R)
		{"mark", plan.MarkJoin, nil, nil, aLtB,
			exectest.Rows{{1, "x", true}, {2, "y", true}, {2, "z", true}, {5, nil, nil}, {nil, "n", nil}}},
	}
	for _, jt := range tests {
		runJoin(t, jt)
	}
}

func TestJoinEmptySides(t *testing.T) {
	cases := []struct {
		name         string
		typ          plan.JoinType
		keys         bool
		lRows, rRows exectest.Rows
		want         exectest.Rows
	}{
		{"left-empty-build", plan.LeftJoin, true, lRows[:2], nil, exectest.Rows{{1, "x", nil, nil}, {2, "y", nil, nil}}},
		{"mark-empty-build", plan.MarkJoin, true, lRows[3:], nil, exectest.Rows{{nil, "n", false}, {5, nil, false}}},
		{"anti-empty-build", plan.AntiJoin, false, lRows[3:], nil, lRows[3:]},
		{"anti-empty-build-hash", plan.AntiJoin, true, lRows, nil, lRows},
		{"semi-empty-build-hash", plan.SemiJoin, true, lRows, nil, nil},
		{"semi-empty-probe-hash", plan.SemiJoin, true, nil, rRows, nil},
		{"anti-empty-probe-hash", plan.AntiJoin, true, nil, rRows, nil},
		{"right-empty-probe", plan.RightJoin, true, nil, rRows[:1], exectest.Rows{{nil, nil, 2, "p"}}},
		{"full-empty-probe-nl", plan.FullJoin, false, nil, rRows[:1], exectest.Rows{{nil, nil, 2, "p"}}},
		{"inner-both-empty", plan.InnerJoin, true, nil, nil, nil},
	}
	for _, c := range cases {
		jt := joinTest{name: c.name, typ: c.typ}
		if c.keys {
			jt.lKeys, jt.rKey = aKey, bKey
		}
		spec := joinSpec(jt, lSchema, rSchema)
		rr := c.rRows
		for _, flip := range []int64{-1, 1 << 20} {
			exectest.Run(t, exectest.Case{
				Name: fmt.Sprintf("%s/flip=%d", c.name, flip), Schema: lSchema, Input: c.lRows, Expected: c.want,
				Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
					return newJoinFlip(in, fixedSource(t, env, rSchema, rr), spec, env, flip), nil
				},
			})
		}
	}
}

// Keys of several types, including multi-column keys, NaN and -0.0 (which DuckDB matches
// with NaN and 0.0) and dates.
func TestHashJoinKeyTypes(t *testing.T) {
	ls := schema(field("f", f64), field("d", dt32), field("k", str))
	rs := schema(field("g", f64), field("e", dt32), field("m", str))
	nan := math.NaN()
	lr := exectest.Rows{{nan, 10, "a"}, {0.0, 11, "b"}, {1.5, nil, "c"}, {2.5, 12, "d"}}
	negZero := math.Copysign(0, -1)
	rr := exectest.Rows{{nan, 10, "A"}, {negZero, 11, "B"}, {1.5, nil, "C"}, {2.5, 13, "D"}}
	jt := joinTest{name: "float-date", typ: plan.InnerJoin,
		lKeys: []plan.Expr{col(0, f64), col(1, dt32)}, rKey: []plan.Expr{col(0, f64), col(1, dt32)}}
	spec := joinSpec(jt, ls, rs)
	exectest.Run(t, exectest.Case{
		Name: jt.name, Schema: ls, Input: lr,
		Expected: exectest.Rows{{nan, arrow.Date32(10), "a", nan, arrow.Date32(10), "A"},
			{0.0, arrow.Date32(11), "b", negZero, arrow.Date32(11), "B"}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewHashJoin(in, fixedSource(t, env, rs, rr), spec, env), nil
		},
	})
}

// A join whose pairs outnumber the batch size many times over streams its output in
// batches of at most BatchSize rows, and closing it mid-stream releases everything.
func TestHashJoinExplodingAndEarlyClose(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem, BatchSize: 7}.WithDefaults()
	s := schema(field("k", i64))
	var rows exectest.Rows
	for range 40 {
		rows = append(rows, []any{int64(1)})
	}
	jt := joinTest{name: "explode", typ: plan.InnerJoin, lKeys: []plan.Expr{col(0, i64)}, rKey: []plan.Expr{col(0, i64)}}
	spec := joinSpec(jt, s, s)
	op := ops.NewHashJoin(fixedSource(t, env, s, rows), fixedSource(t, env, s, rows), spec, env)
	out, err := exec.Collect(context.Background(), op)
	require.NoError(t, err)
	total := 0
	for _, b := range out {
		require.LessOrEqual(t, b.NumRows(), int64(7))
		total += int(b.NumRows())
		b.Release()
	}
	require.Equal(t, 1600, total)

	op = ops.NewHashJoin(fixedSource(t, env, s, rows), fixedSource(t, env, s, rows), spec, env)
	ctx := context.Background()
	require.NoError(t, op.Open(ctx))
	b, err := op.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(7), b.NumRows())
	b.Release()
	require.NoError(t, op.Close())
}

func TestHashJoinKeyTypeMismatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem}.WithDefaults()
	jt := joinTest{name: "mismatch", typ: plan.InnerJoin, lKeys: []plan.Expr{col(0, i64)}, rKey: []plan.Expr{col(1, str)}}
	spec := joinSpec(jt, lSchema, rSchema)
	_, err := exec.Collect(context.Background(), ops.NewHashJoin(fixedSource(t, env, lSchema, lRows), fixedSource(t, env, rSchema, rRows), spec, env))
	require.ErrorContains(t, err, "left type int64, right type utf8")
}

// (a, s) IN (SELECT b, t FROM R) with two keys: a comparison is NULL when the non-NULL keys
// are equal and some key is NULL. Expected values are DuckDB's.
func TestMarkJoinTwoKeys(t *testing.T) {
	left := exectest.Rows{{1, "x"}, {2, "y"}, {2, nil}, {nil, "n"}, {5, "q"}, {3, "r"}}
	right := exectest.Rows{{2, "y"}, {2, nil}, {3, "z"}, {nil, "q"}}
	keys := []plan.Expr{col(0, i64), col(1, str)}
	jt := joinTest{name: "mark-two-keys", typ: plan.MarkJoin, lKeys: keys, rKey: keys}
	spec := joinSpec(jt, lSchema, rSchema)
	want := exectest.Rows{{1, "x", false}, {2, "y", true}, {2, nil, nil}, {nil, "n", nil}, {5, "q", nil}, {3, "r", false}}
	// The second run adds a residual condition that is TRUE on every pair (it reads only the
	// right side: a NULL residual would filter a pair out, as a WHERE in the subquery does).
	alwaysTrue := call("not_equal", bln, call("coalesce", i64, col(2, i64), lit(int64(0))), lit(int64(100)))
	for _, cond := range []plan.Expr{nil, alwaysTrue} {
		spec.Cond = cond
		exectest.Run(t, exectest.Case{
			Name: jt.name, Schema: lSchema, Input: left, Expected: want,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewHashJoin(in, fixedSource(t, env, rSchema, right), spec, env), nil
			},
		})
	}
}
