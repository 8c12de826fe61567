package bind

import (
	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// bindDelete binds DELETE FROM t [WHERE cond]: the source is the row addresses of the rows
// of the latest version of t that satisfy cond.
func (b *binder) bindDelete(s *ast.Delete) (plan.Node, error) {
	can := func(c catalog.Catalog) bool { _, ok := c.(catalog.Deleter); return ok }
	target, node, sc, err := b.bindTargetScan(s.Table, s.Where, "DELETE", can)
	if err != nil {
		return nil, err
	}
	addr, err := b.rowAddrExpr(sc, &node, "DELETE")
	if err != nil {
		return nil, err
	}
	src := plan.NewProject(node, []plan.Expr{addr}, []string{catalog.RowAddrColumn})
	return &plan.Delete{Target: target, Source: src}, nil
}
