package ops

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestShareArgs: repeated arithmetic is shared, largest first, nested definitions refer to
// the smaller shared ones, and volatile or single occurrences are left alone.
func TestShareArgs(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	x := &plan.ColumnRef{Index: 1, Name: "x", DataType: i64, Null: true}
	lit := func(v int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(v)} }
	call := func(fn string, args ...plan.Expr) plan.Expr {
		return &plan.Call{Func: fn, Args: args, DataType: i64, Null: true}
	}
	twice := call("multiply", x, lit(2))
	plus := call("add", twice, lit(1))
	random := call("random")
	args := [][]plan.Expr{{twice}, {plus}, {call("add", call("multiply", x, lit(2)), lit(1))}, {call("subtract", x, lit(1))}, nil, {random}, {random}}
	cs := shareArgs(args, 3)
	require.NotNil(t, cs)
	require.Len(t, cs.defs, 2)
	require.Equal(t, "add(cse#4, 1)", cs.defs[0].String())
	require.Equal(t, "multiply(x#1, 2)", cs.defs[1].String())
	want := []string{"cse#4", "cse#3", "cse#3", "subtract(x#1, 1)", "", "random()", "random()"}
	for i, a := range args {
		if a == nil {
			require.Empty(t, want[i])
			continue
		}
		require.Equal(t, want[i], a[0].String(), "argument %d", i)
	}
	require.Equal(t, "add(multiply(x#1, 2), 1)", plus.String(), "the plan's expressions are not changed")
	require.Nil(t, shareArgs([][]plan.Expr{{twice}, {call("add", x, lit(1))}}, 3), "nothing repeated")
}
