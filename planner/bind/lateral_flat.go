package bind

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// flatLateralRight binds a lateral subquery the specialised decorrelation refuses in
// general mode (flatten.go); lateralJoin flattens it over the left input's domain.
func (b *binder) flatLateralRight(ref *ast.SubqueryRef, ls *scope) (plan.Node, *scope, *subquery, error) {
	child := b.child()
	child.outer = ls
	child.corr = &correlation{general: true}
	n, err := child.bindStatement(ref.Query)
	if err != nil {
		return nil, nil, nil, err
	}
	_, sc, err := derived(n, ref.Alias, ref.Columns, ref.Pos)
	return n, sc, &subquery{plan: n, ncols: width(n), corr: child.corr, general: true}, err
}

// flatLateralJoin joins a general-mode lateral subquery, flattened over the left input's
// domain, onto left (typ is an inner or left join) on NULL-safe domain keys and the ON
// condition, and projects the domain columns away.
func (b *binder) flatLateralJoin(j *ast.Join, typ plan.JoinType, left plan.Node, ls, rs *scope, sq *subquery) (plan.Node, *scope, error) {
	fs, err := flattenOnto(sq.plan, ls, left, nil)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(fs.outer) == 0: // reads no column of the left side: a plain join
	case j.Natural || len(j.Using) > 0:
		return nil, nil, dberr.NotSupported("NATURAL or USING joins with a lateral subquery").At(j.Pos.Line, j.Pos.Column)
	case typ == plan.CrossJoin:
		typ = plan.InnerJoin
	case typ != plan.InnerJoin && typ != plan.LeftJoin:
		return nil, nil, errLateralJoinType(j)
	}
	nleft := width(left)
	lk, rk, cond, err := fs.keys(fs.plan, fs.ncols, nleft)
	if err != nil {
		return nil, nil, err
	}
	both := &scope{cols: append(append([]scopeCol{}, ls.cols...), shiftCols(rs.cols, nleft)...)}
	onL, onR, rest, err := b.lateralOn(j, both, nleft)
	if err != nil {
		return nil, nil, err
	}
	jn := plan.NewJoin(left, fs.plan, typ, append(lk, onL...), append(rk, onR...), conjoinAll([]plan.Expr{cond, rest}))
	w := nleft + fs.ncols
	proj := plan.NewProject(jn, columnRefs(jn.Schema(), w), fieldNames(jn, w))
	return proj, refresh(both, proj), nil
}

// lateralOn binds the ON condition of a lateral join over both sides (nleft left
// columns) and splits it into equi keys and the rest; all nil without ON.
func (b *binder) lateralOn(j *ast.Join, both *scope, nleft int) ([]plan.Expr, []plan.Expr, plan.Expr, error) {
	if j.On == nil {
		return nil, nil, nil, nil
	}
	eb := &exprBinder{b: b, scope: both, clause: "JOIN condition"}
	on, err := eb.bind(j.On)
	if err != nil {
		return nil, nil, nil, err
	}
	if on, err = asPredicate(on, "JOIN", j.On.Position()); err != nil {
		return nil, nil, nil, err
	}
	onL, onR, rest := plan.SplitJoinCondition(on, nleft)
	return onL, onR, rest, nil
}

// errLateralJoinType is DuckDB's error for a RIGHT or FULL join with a lateral reference.
func errLateralJoinType(j *ast.Join) error {
	return dberr.New(dberr.Binder, "The combining JOIN type must be INNER or LEFT for a LATERAL reference").At(j.Pos.Line, j.Pos.Column)
}
