// Package build turns an (optimized) logical plan into a tree of executable operators.
package build

import (
	"fmt"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Build turns n into a tree of operators that run with env. Nothing is opened: the caller
// Opens the root, drains it and Closes it (exec.Collect does all three).
func Build(n plan.Node, env exec.Env) (exec.Operator, error) {
	env = env.WithDefaults()
	switch n := n.(type) {
	case *plan.Scan:
		return ops.NewScan(n, env), nil
	case *plan.Filter:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewFilter(in, n.Cond, env), nil
	case *plan.Project:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewProject(in, n.Exprs, n.Schema(), env), nil
	case *plan.Aggregate:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewAggregate(in, n.GroupBy, n.Aggs, n.Schema(), env), nil
	case *plan.Sort:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewSort(in, n.Keys, env), nil
	case *plan.Limit:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewLimit(in, n.Offset, n.Count), nil
	case nil:
		return nil, dberr.New(dberr.Internal, "build: nil plan node")
	}
	return nil, dberr.NotSupported(fmt.Sprintf("plan node %T", n))
}
