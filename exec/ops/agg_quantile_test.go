package ops_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Expected values are DuckDB 2.0's over the same rows:
//
//	CREATE TABLE x AS SELECT * FROM (VALUES (1, NULL, 'a'), (1, 2, NULL), (1, 3, 'c'),
//	  (2, NULL, NULL), (3, 5, 'z'), (1, 7, 'b')) t(g, v, s);
//	SELECT g, median(v), quantile_cont(v, 0.25), quantile_disc(v, 0.5), arg_max(s, v),
//	  arg_min(s, v), median(s), mode(g) FROM x GROUP BY g ORDER BY g
func TestOrderStatAggregates(t *testing.T) {
	g, v, s := col(0, i64), col(1, i64), col(2, str)
	q := func(f float64) plan.Expr { return &plan.Literal{Value: scalar.NewFloat64Scalar(f)} }
	aggs := []plan.AggCall{
		agg("median", f64, false, v), agg("quantile_cont", f64, false, v, q(0.25)),
		agg("quantile_disc", i64, false, v, q(0.5)), agg("arg_max", str, false, s, v),
		agg("arg_min", str, false, s, v), agg("median", str, false, s), agg("mode", i64, false, g),
	}
	fields := []arrow.Field{field("k0", i64)}
	for _, a := range aggs {
		fields = append(fields, field(a.Name, a.DataType))
	}
	out := schema(fields...)
	rows := exectest.Rows{{1, nil, "a"}, {1, 2, nil}, {1, 3, "c"}, {2, nil, nil}, {3, 5, "z"}, {1, 7, "b"}}
	want := exectest.Rows{
		{1, 3.0, 2.5, 3, "b", "c", "b", 1},
		{2, nil, nil, nil, nil, nil, nil, 2},
		{3, 5.0, 5.0, 5, "z", "z", "z", 3},
	}
	exectest.Run(t, exectest.Case{
		Name: "grouped", Schema: moreSchema, Input: rows, Expected: want,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewAggregate(in, []plan.Expr{g}, aggs, out, env), nil
		},
	})
}
