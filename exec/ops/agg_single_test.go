package ops_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// single_value is the aggregate of a scalar subquery: one row gives its value (NULL too),
// no rows give NULL, a second row is an error.
func TestAggregateSingleValue(t *testing.T) {
	single := []plan.AggCall{agg("single_value", i64, false, col(1, i64)), agg("single_value", str, false, col(0, str))}
	cases := []struct {
		name    string
		groupBy []plan.Expr
		input   exectest.Rows
		want    exectest.Rows
	}{
		{"one-row", nil, exectest.Rows{{"a", 7, nil, nil, nil}}, exectest.Rows{{7, "a"}}},
		{"one-null-row", nil, exectest.Rows{{nil, nil, nil, nil, nil}}, exectest.Rows{{nil, nil}}},
		{"no-rows", nil, exectest.Rows{}, exectest.Rows{{nil, nil}}},
		{"one-row-per-group", []plan.Expr{col(0, str)},
			exectest.Rows{{"a", 1, nil, nil, nil}, {"b", nil, nil, nil, nil}, {nil, 3, nil, nil, nil}},
			exectest.Rows{{"a", 1, "a"}, {"b", nil, "b"}, {nil, 3, nil}}},
	}
	for _, c := range cases {
		exectest.Run(t, aggCase(c.name, c.groupBy, single, c.input, c.want))
	}
	for _, in := range []exectest.Rows{
		{{"a", 1, nil, nil, nil}, {"a", 2, nil, nil, nil}},
		{{"a", nil, nil, nil, nil}, {"a", nil, nil, nil, nil}}, // NULL rows count too
	} {
		exectest.Run(t, exectest.Case{
			Name: "two-rows", Schema: aggSchema, Input: in,
			Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
				return ops.NewAggregate(in, []plan.Expr{col(0, str)}, single[:1], schema(field("k0", str), field("single_value", i64)), env), nil
			},
			WantErr: func(t *testing.T, err error) {
				k, _ := dberr.KindOf(err)
				require.Equal(t, dberr.InvalidInput, k)
				require.ErrorContains(t, err, "More than one row returned by a subquery used as an expression")
			},
		})
	}
}
