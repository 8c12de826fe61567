package build

import (
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// buildWrite builds the operator of INSERT, DELETE, UPDATE or CREATE TABLE over its source.
func buildWrite(n plan.Node, env exec.Env) (exec.Operator, error) {
	if c, ok := n.(*plan.CreateTable); ok {
		if c.Catalog == nil || c.Table == nil {
			return nil, dberr.New(dberr.Internal, "build: CREATE TABLE without a catalog or schema")
		}
		in, err := Build(c.Source, env)
		if err != nil {
			return nil, err
		}
		return ops.NewCreateTable(in, c, env), nil
	}
	var kind ops.WriteKind
	var target plan.WriteTarget
	switch w := n.(type) {
	case *plan.Insert:
		kind, target = ops.WriteInsert, w.Target
	case *plan.Delete:
		kind, target = ops.WriteDelete, w.Target
	case *plan.Update:
		kind, target = ops.WriteUpdate, w.Target
	default:
		return nil, dberr.New(dberr.Internal, "build: %T is not a write", n)
	}
	if target.Catalog == nil || target.Table == nil {
		return nil, dberr.New(dberr.Internal, "build: %s without a target table", kind)
	}
	src, _ := plan.WriteSource(n)
	in, err := Build(src, env)
	if err != nil {
		return nil, err
	}
	return ops.NewWrite(in, kind, target, env), nil
}
