package build

import (
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// buildRecursiveCTE builds the fixpoint operator; the step is built afresh for every
// round.
func buildRecursiveCTE(n *plan.RecursiveCTE, env exec.Env) (exec.Operator, error) {
	anchor, err := Build(n.Anchor, env)
	if err != nil {
		return nil, err
	}
	newStep := func() (exec.Operator, error) { return Build(n.Step, env) }
	return ops.NewRecursiveCTE(anchor, newStep, n.All, n.ID, n.Schema(), env), nil
}
