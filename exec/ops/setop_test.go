package ops_test

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Expected results are DuckDB 2.0's for the same inputs.
func TestSetOp(t *testing.T) {
	s := schema(field("a", i64), field("s", str))
	left := exectest.Rows{{1, "a"}, {1, "a"}, {2, nil}, {2, nil}, {3, "c"}, {nil, nil}, {1, "a"}}
	right := exectest.Rows{{1, "a"}, {2, nil}, {4, "d"}, {nil, nil}, {nil, nil}}
	cases := []struct {
		kind    plan.SetOpKind
		all     bool
		want    exectest.Rows
		ordered bool
	}{
		{plan.Union, true, append(append(exectest.Rows{}, left...), right...), true},
		{plan.Union, false, exectest.Rows{{1, "a"}, {2, nil}, {3, "c"}, {nil, nil}, {4, "d"}}, true},
		{plan.Intersect, false, exectest.Rows{{1, "a"}, {2, nil}, {nil, nil}}, true},
		{plan.Intersect, true, exectest.Rows{{1, "a"}, {2, nil}, {nil, nil}}, true},
		{plan.Except, false, exectest.Rows{{3, "c"}}, true},
		{plan.Except, true, exectest.Rows{{2, nil}, {3, "c"}, {1, "a"}, {1, "a"}}, false},
	}
	for _, c := range cases {
		name := c.kind.String()
		if c.all {
			name += "-all"
		}
		out := plan.NewSetOp(plan.NewValues(s, nil), plan.NewValues(s, nil), c.kind, c.all).Schema()
		exectest.Run(t, exectest.Case{
			Name: name + "/left", Schema: s, Input: left, Expected: c.want, Ordered: c.ordered,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewSetOp(in, fixedSource(t, env, s, right), c.kind, c.all, out, env), nil
			},
		})
		exectest.Run(t, exectest.Case{
			Name: name + "/right", Schema: s, Input: right, Expected: c.want, Ordered: c.ordered,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewSetOp(fixedSource(t, env, s, left), in, c.kind, c.all, out, env), nil
			},
		})
	}
}

func TestSetOpFloatsAndEmpty(t *testing.T) {
	s := schema(field("f", f64))
	out := plan.NewSetOp(plan.NewValues(s, nil), plan.NewValues(s, nil), plan.Union, false).Schema()
	exectest.Run(t, exectest.Case{
		Name: "nan-and-zero", Schema: s, Input: exectest.Rows{{0.0}, {nil}, {1.5}}, Ordered: true,
		Expected: exectest.Rows{{0.0}, {nil}, {1.5}, {2.0}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewSetOp(in, fixedSource(t, env, s, exectest.Rows{{math.Copysign(0, -1)}, {2.0}, {nil}, {1.5}}), plan.Union, false, out, env), nil
		},
	})
	exectest.Run(t, exectest.Case{
		Name: "except-empty-right", Schema: s, Input: exectest.Rows{{1.0}, {1.0}}, Ordered: true,
		Expected: exectest.Rows{{1.0}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewSetOp(in, fixedSource(t, env, s, nil), plan.Except, false, out, env), nil
		},
	})
}

func litOf(t *testing.T, v any, dt arrow.DataType) *plan.Literal {
	if v == nil {
		return &plan.Literal{Value: scalar.MakeNullScalar(dt)}
	}
	sc, err := scalar.MakeScalarParam(v, dt)
	require.NoError(t, err)
	return &plan.Literal{Value: sc}
}

func TestValues(t *testing.T) {
	s := schema(field("x", i64), field("y", str), field("z", f64))
	rows := [][]plan.Expr{
		{litOf(t, int64(1), i64), litOf(t, "one", str), litOf(t, 1.5, f64)},
		{call("add", i64, litOf(t, int64(2), i64), litOf(t, int64(3), i64)), litOf(t, nil, str), litOf(t, nil, f64)},
		// A value of another type is cast to the column's type.
		{litOf(t, int32(7), i32), call("coalesce", str, litOf(t, nil, str), litOf(t, "c", str)), litOf(t, int64(2), i64)},
	}
	exectest.Run(t, exectest.Case{
		Name: "rows", Schema: schema(), Ordered: true,
		Expected: exectest.Rows{{1, "one", 1.5}, {5, nil, nil}, {7, "c", 2.0}},
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			require.NoError(t, in.Close())
			return ops.NewValues(rows, s, env), nil
		},
	})
	// Rows without columns carry only a count.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem}.WithDefaults()
	out, err := exec.Collect(context.Background(), ops.NewValues([][]plan.Expr{{}, {}}, schema(), env))
	require.NoError(t, err)
	require.Len(t, out, 1)
	require.Equal(t, int64(2), out[0].NumRows())
	out[0].Release()
	// A failing expression is an error.
	_, err = exec.Collect(context.Background(), ops.NewValues([][]plan.Expr{
		{call("divide", i64, litOf(t, int64(1), i64), litOf(t, int64(0), i64))}}, schema(field("x", i64)), env))
	require.ErrorContains(t, err, "Division by zero")
}
