package bind

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// recursiveIDs numbers recursive CTEs so that a working table finds its fixpoint (the IDs
// only need to differ within one plan).
var recursiveIDs atomic.Int64

// bindRecursiveRef binds a reference to a CTE of WITH RECURSIVE. Inside the recursive part
// of its own query it is the working table; elsewhere a query of the form
// anchor UNION [ALL] step whose step refers to the CTE is a plan.RecursiveCTE, and any other
// query is bound as an ordinary CTE.
func (b *binder) bindRecursiveRef(d *cteDef, ref *ast.TableRef) (plan.Node, *scope, error) {
	alias := ref.Alias
	if alias == "" {
		alias = d.cte.Name
	}
	if d.working != nil {
		d.used = true
		return derived(d.working, alias, d.cte.Columns, ref.Pos)
	}
	child := b.child()
	child.ctes = d.env
	q, ok := d.cte.Query.(*ast.SetOp)
	if !ok || q.Op != "UNION" || q.OrderBy != nil || q.Limit != nil || q.Offset != nil {
		n, err := child.bindStatement(d.cte.Query)
		if err != nil {
			return nil, nil, err
		}
		return derived(n, alias, d.cte.Columns, ref.Pos)
	}
	n, err := child.bindRecursive(d, q)
	if err != nil {
		return nil, nil, err
	}
	return derived(n, alias, d.cte.Columns, ref.Pos)
}

// bindRecursive binds anchor UNION [ALL] step of the recursive CTE d (b sees the CTEs
// before d). When step does not refer to d it is an ordinary set operation.
func (b *binder) bindRecursive(d *cteDef, q *ast.SetOp) (plan.Node, error) {
	anchor, err := b.child().bindStatement(q.Left)
	if err != nil {
		return nil, err
	}
	fields := anchor.Schema().Fields()
	types := make([]arrow.DataType, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		types[i], names[i] = f.Type, f.Name
		if f.Type.ID() == arrow.NULL {
			types[i] = arrow.PrimitiveTypes.Int32
		}
	}
	if anchor, err = castColumns(anchor, types, names); err != nil {
		return nil, err
	}
	id := recursiveIDs.Add(1)
	self := &cteDef{cte: d.cte, env: d.env, working: plan.NewWorkingTable(id, anchor.Schema())}
	stepBinder := b.child()
	stepBinder.ctes = &cteEnv{defs: []*cteDef{self}, parent: d.env}
	step, err := stepBinder.bindStatement(q.Right)
	if err != nil {
		return nil, err
	}
	if !self.used {
		return b.bindSetOp(q)
	}
	if step.Schema().NumFields() != len(types) {
		return nil, dberr.New(dberr.Binder, "Set operations can only apply to expressions with the same number of result columns").At(q.Pos.Line, q.Pos.Column)
	}
	if step, err = castColumns(step, types, names); err != nil {
		return nil, err
	}
	return plan.NewRecursiveCTE(anchor, step, q.All, id), nil
}
