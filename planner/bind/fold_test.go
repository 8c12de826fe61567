package bind

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

func TestFoldInteger(t *testing.T) {
	i64 := func(n int64) plan.Expr { return &plan.Literal{Value: scalar.NewInt64Scalar(n)} }
	call := func(f string, args ...plan.Expr) plan.Expr {
		return &plan.Call{Func: f, Args: args, DataType: arrow.PrimitiveTypes.Int64}
	}
	tests := []struct {
		in   plan.Expr
		want string // "" when the expression must stay unfolded
	}{
		{call("add", i64(2), i64(3)), "5"},
		{call("subtract", i64(2), i64(3)), "-1"},
		{call("multiply", i64(-4), i64(3)), "-12"},
		{call("negate", call("add", i64(1), i64(1))), "-2"},
		{call("add", i64(math.MaxInt64), i64(1)), ""},
		{call("subtract", i64(math.MinInt64), i64(1)), ""},
		{call("multiply", i64(math.MaxInt64/2+1), i64(2)), ""},
		{call("negate", i64(math.MinInt64)), ""},
		{call("divide", i64(4), i64(2)), ""},
		{call("add", i64(1), &plan.ColumnRef{Name: "x", DataType: arrow.PrimitiveTypes.Int64}), ""},
	}
	for _, tc := range tests {
		t.Run(tc.in.String(), func(t *testing.T) {
			out := foldInteger(tc.in)
			if tc.want == "" {
				require.Same(t, tc.in, out)
				return
			}
			require.Equal(t, tc.want, out.String())
		})
	}
}
