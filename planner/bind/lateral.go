package bind

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Lateral joins. As in DuckDB, a subquery in FROM may reference the columns of the FROM
// items to its left, with or without the LATERAL keyword (the parser accepts and drops
// it). Such a subquery is bound like a correlated subquery whose outer scope is the join's
// left side and decorrelated onto the left input:
//
//   - without aggregates, its correlations become the join's keys (equalities) and
//     condition (everything else), and the correlation columns it outputs after its own
//     are projected away;
//   - with aggregates, it is decorrelated over a domain (domain.go), so that every left
//     row finds exactly one aggregate row (count 0 over no rows), joined on NULL-safe keys.
//
// CROSS JOIN LATERAL, the comma form, [INNER] JOIN LATERAL ... ON and LEFT JOIN LATERAL
// ... ON are supported; the ON condition is added to the join's.

// bindJoinRight binds the right side of a join. A subquery may reference the left side's
// columns: lat is then its decorrelation state (nil for any other right side).
func (b *binder) bindJoinRight(item ast.FromItem, ls *scope) (plan.Node, *scope, *subquery, error) {
	ref, ok := item.(*ast.SubqueryRef)
	if !ok {
		n, sc, err := b.bindFromItem(item)
		return n, sc, nil, err
	}
	child := b.child()
	ls.outer = b.outer // a reference past the left side is a deep one (flatten.go)
	child.outer = ls
	child.corr = &correlation{lateral: true}
	n, err := child.bindStatement(ref.Query)
	if needsGeneral(err) || err == nil && child.corr.deep {
		return b.flatLateralRight(ref, ls) // lateral_flat.go
	}
	if err != nil {
		return nil, nil, nil, err
	}
	c := child.corr
	outerRefs := nodeHasOuter(n)
	if len(c.inner)+len(c.residual) == 0 && c.domain == nil && !outerRefs {
		n, sc, err := derived(n, ref.Alias, ref.Columns, ref.Pos)
		return n, sc, nil, err
	}
	sq := &subquery{plan: n, ncols: n.Schema().NumFields() - len(c.inner) - len(c.extra), outerKeys: c.outer, corr: c}
	if len(c.residual) > 0 && c.aggregated {
		return nil, nil, nil, dberr.New(dberr.Internal, "lateral aggregate not decorrelated over a domain")
	}
	if outerRefs && !sq.lift() {
		return b.flatLateralRight(ref, ls) // lateral_flat.go
	}
	visible := plan.NewProject(n, columnRefs(n.Schema(), sq.ncols), fieldNames(n, sq.ncols))
	_, sc, err := derived(visible, ref.Alias, ref.Columns, ref.Pos)
	return n, sc, sq, err
}

func fieldNames(n plan.Node, k int) []string {
	out := make([]string, k)
	for i := range k {
		out[i] = n.Schema().Field(i).Name
	}
	return out
}

// lateralJoin joins the decorrelated lateral subquery sq (plan right, visible columns in
// rs) onto left and projects the correlation columns away.
func (b *binder) lateralJoin(j *ast.Join, left, right plan.Node, ls, rs *scope, sq *subquery) (plan.Node, *scope, error) {
	typ := joinTypes[j.Kind]
	if sq.general {
		return b.flatLateralJoin(j, typ, left, ls, rs, sq) // lateral_flat.go
	}
	switch {
	case j.Natural || len(j.Using) > 0:
		return nil, nil, dberr.NotSupported("NATURAL or USING joins with a lateral subquery").At(j.Pos.Line, j.Pos.Column)
	case typ == plan.CrossJoin:
		typ = plan.InnerJoin
	case typ != plan.InnerJoin && typ != plan.LeftJoin:
		return nil, nil, errLateralJoinType(j)
	}
	nleft := left.Schema().NumFields()
	if sq.lifted != nil {
		return b.liftedLateralJoin(j, typ, left, ls, rs, sq)
	}
	sq.attachDomain(left)
	lk, rk := sq.outerKeys, sq.rightKeys()
	var conds []plan.Expr
	if sq.corr.domain != nil {
		var cond plan.Expr
		var err error
		if lk, rk, cond, err = nullSafeKeys(lk, rk, nleft); err != nil {
			return nil, nil, err
		}
		conds = append(conds, cond)
	}
	conds = append(conds, sq.joinCond(nleft))
	both := &scope{cols: append(append([]scopeCol{}, ls.cols...), shiftCols(rs.cols, nleft)...)}
	onL, onR, rest, err := b.lateralOn(j, both, nleft)
	if err != nil {
		return nil, nil, err
	}
	lk, rk = append(append([]plan.Expr{}, lk...), onL...), append(append([]plan.Expr{}, rk...), onR...)
	conds = append(conds, rest)
	var nonNil []plan.Expr
	for _, c := range conds {
		if c != nil {
			nonNil = append(nonNil, c)
		}
	}
	jn := plan.NewJoin(left, right, typ, lk, rk, plan.Conjoin(nonNil))
	width := nleft + sq.ncols
	names := make([]string, width)
	for i := range width {
		names[i] = jn.Schema().Field(i).Name
	}
	proj := plan.NewProject(jn, columnRefs(jn.Schema(), width), names)
	return proj, refresh(both, proj), nil
}
