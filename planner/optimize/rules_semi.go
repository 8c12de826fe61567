package optimize

import (
	"github.com/flightd/flightd/planner/plan"
)

// pushSemiJoins moves semi and anti joins with equi keys down through projections and
// into one input of the inner joins below them, when every left column they read (keys
// and residual condition) comes from that input and, by plan.Estimator, that input is no
// larger than the join or the moved join is smaller than it (worthSinking): (A ⋈ B) ⋉ C
// = (A ⋉ C) ⋈ B. Both plans probe A once; the pushed one then joins |A ⋉ C| rows with B
// instead of probing C with |A ⋈ B| rows. A selective IN or EXISTS
// subquery then filters its table before the joins instead of after them (TPC-H q18:
// o_orderkey IN (…) filters orders before lineitem is joined; q02: the decorrelated
// min(ps_supplycost) filters partsupp by the outer part keys before the supplier join),
// while a semi join over a join that is already more selective stays where it is (q21).
// It runs after reorderJoins.
func pushSemiJoins(n plan.Node) plan.Node {
	est := plan.NewEstimator()
	return transformUp(n, func(m plan.Node) plan.Node {
		j, ok := m.(*plan.Join)
		if !ok || (j.Type != plan.SemiJoin && j.Type != plan.AntiJoin) || len(j.LeftKeys) == 0 {
			return m
		}
		if out, moved := sinkSemi(j, est); moved {
			return out
		}
		return m
	})
}

// sinkSemi returns the plan with the semi or anti join j moved as far down its left input
// as it goes, and whether it moved.
func sinkSemi(j *plan.Join, est *plan.Estimator) (plan.Node, bool) {
	switch l := j.Left.(type) {
	case *plan.Project:
		below, ok := moveSemi(j, l.Input, func(c *plan.ColumnRef) plan.Expr {
			if ref, isRef := l.Exprs[c.Index].(*plan.ColumnRef); isRef {
				return ref
			}
			return nil
		})
		if !ok {
			return j, false
		}
		sunk, moved := sinkSemi(below, est)
		if !moved {
			return j, false
		}
		return plan.NewProject(sunk, l.Exprs, l.Names), true
	case *plan.Join:
		if !innerLike(l) {
			return j, false
		}
		nA := l.Left.Schema().NumFields()
		if below, ok := moveSemi(j, l.Left, func(c *plan.ColumnRef) plan.Expr {
			return sideRef(c, 0, nA)
		}); ok && worthSinking(est, below, l.Left, l) {
			sunk, _ := sinkSemi(below, est)
			return withChildren(l, []plan.Node{sunk, l.Right}), true
		}
		nB := l.Right.Schema().NumFields()
		if below, ok := moveSemi(j, l.Right, func(c *plan.ColumnRef) plan.Expr {
			return sideRef(c, nA, nA+nB)
		}); ok && worthSinking(est, below, l.Right, l) {
			sunk, _ := sinkSemi(below, est)
			return withChildren(l, []plan.Node{l.Left, sunk}), true
		}
	}
	return j, false
}

// worthSinking reports whether the semi or anti join moved onto side (below) should
// replace the one above the inner join j: side is no larger than j (the semi join then
// filters the smaller input), or below is estimated strictly smaller than j (it filters
// side more than j's other input does).
func worthSinking(est *plan.Estimator, below *plan.Join, side plan.Node, j *plan.Join) bool {
	joined := est.Rows(j)
	return est.Rows(side) <= joined || est.Rows(below) < joined
}

// sideRef re-indexes c over the input holding columns [lo, hi), or returns nil when c is
// outside it.
func sideRef(c *plan.ColumnRef, lo, hi int) plan.Expr {
	if c.Index < lo || c.Index >= hi {
		return nil
	}
	out := *c
	out.Index -= lo
	return &out
}

// moveSemi rebuilds the semi or anti join j over the new left input left, mapping each
// left column reference through leftCol (nil: not available there, then ok is false).
func moveSemi(j *plan.Join, left plan.Node, leftCol func(*plan.ColumnRef) plan.Expr) (out *plan.Join, ok bool) {
	ok = true
	nOld, nNew := j.Left.Schema().NumFields(), left.Schema().NumFields()
	mapLeft := func(c *plan.ColumnRef) plan.Expr {
		e := leftCol(c)
		if e == nil {
			ok = false
			return c
		}
		return e
	}
	keys := make([]plan.Expr, len(j.LeftKeys))
	for i, k := range j.LeftKeys {
		keys[i] = plan.RewriteColumns(k, mapLeft)
	}
	var cond plan.Expr
	if j.Cond != nil {
		cond = plan.RewriteColumns(j.Cond, func(c *plan.ColumnRef) plan.Expr {
			if c.Index < nOld {
				return mapLeft(c)
			}
			r := *c
			r.Index += nNew - nOld
			return &r
		})
	}
	if !ok {
		return nil, false
	}
	return plan.NewJoin(left, j.Right, j.Type, keys, j.RightKeys, cond), true
}
