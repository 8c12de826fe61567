package ops_test

import (
	"testing"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Casts read only valid rows: the hostile layout puts unparsable junk under NULL strings.
func TestProjectCasts(t *testing.T) {
	sch := schema(field("s", str), field("f", f64), field("d", dt32))
	in := exectest.Rows{{"12", 2.5, 19724}, {nil, nil, nil}, {"-3", -0.5, 0}}
	exprs := []plan.Expr{
		&plan.Cast{Input: col(0, str), DataType: i64},
		&plan.Cast{Input: col(1, f64), DataType: i32},
		&plan.Cast{Input: col(1, f64), DataType: str},
		&plan.Cast{Input: col(2, dt32), DataType: str},
		&plan.Cast{Input: col(0, str), DataType: f64},
	}
	out := schema(field("i", i64), field("r", i32), field("fs", str), field("ds", str), field("sf", f64))
	exectest.Run(t, exectest.Case{
		Name: "casts", Schema: sch, Input: in, Ordered: true,
		Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewProject(in, exprs, out, env), nil
		},
		Expected: exectest.Rows{
			{12, 2, "2.5", "2024-01-02", 12.0},
			{nil, nil, nil, nil, nil},
			{-3, 0, "-0.5", "1970-01-01", -3.0},
		},
	})
}
