package optimize

import (
	"github.com/flightd/flightd/planner/plan"
)

// pushFilters moves filter conjuncts as far down as they go: through projections
// (substituting the projected expressions), sorts and joins, into the scan at the bottom.
// At a join, a conjunct that reads one side only goes to that side unless that side is
// null-supplying (the right of a LEFT join, the left of a RIGHT join, both of a FULL join);
// a conjunct that reads both sides of an inner or cross join becomes part of the join: an
// equality of a left-only and a right-only expression becomes a key (so a cross join plus
// WHERE a = b becomes an inner join), anything else the residual condition. A scan that
// already has a limit keeps the filter above it (the limit counts filtered rows).
func pushFilters(n plan.Node) plan.Node { return push(n, nil) }

// push rebuilds n with preds (conditions over n's output) applied as low as possible.
func push(n plan.Node, preds []plan.Expr) plan.Node {
	switch n := n.(type) {
	case *plan.Filter:
		out := append([]plan.Expr{}, preds...)
		for _, c := range plan.SplitConjuncts(n.Cond) {
			out = append(out, factorOr(c)...)
		}
		return push(n.Input, out)
	case *plan.Scan:
		if len(preds) == 0 || n.Limit >= 0 {
			return wrap(n, preds)
		}
		out := copyScan(n)
		out.Filter = plan.Conjoin(append(plan.SplitConjuncts(n.Filter), preds...))
		return out
	case *plan.Project:
		var down []plan.Expr
		for _, p := range preds {
			down = append(down, inline(p, n.Exprs))
		}
		return plan.NewProject(push(n.Input, down), n.Exprs, n.Names)
	case *plan.Sort:
		return &plan.Sort{Input: push(n.Input, preds), Keys: n.Keys}
	case *plan.Join:
		return pushJoin(n, preds)
	}
	kids := n.Children()
	if len(kids) > 0 {
		newKids := make([]plan.Node, len(kids))
		for i, k := range kids {
			newKids[i] = push(k, nil)
		}
		n = withChildren(n, newKids)
	}
	return wrap(n, preds)
}

// wrap puts preds in a Filter over n.
func wrap(n plan.Node, preds []plan.Expr) plan.Node {
	if len(preds) == 0 {
		return n
	}
	return &plan.Filter{Input: n, Cond: plan.Conjoin(preds)}
}

// inline rewrites a condition over a projection's output into one over its input.
func inline(e plan.Expr, exprs []plan.Expr) plan.Expr {
	return plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr { return exprs[c.Index] })
}

func pushJoin(j *plan.Join, preds []plan.Expr) plan.Node {
	nleft := j.Left.Schema().NumFields()
	nright := j.Right.Schema().NumFields()
	var left, right, above, joined []plan.Expr
	typ := j.Type
	for _, p := range preds {
		inLeft, anyCol := plan.ColumnRange(p, 0, nleft)
		inRight, _ := plan.ColumnRange(p, nleft, nleft+nright)
		outputsRight := typ != plan.SemiJoin && typ != plan.AntiJoin && typ != plan.MarkJoin
		switch {
		case anyCol && inLeft && typ != plan.RightJoin && typ != plan.FullJoin:
			left = append(left, p)
		case anyCol && inRight && outputsRight && (typ == plan.InnerJoin || typ == plan.CrossJoin || typ == plan.RightJoin):
			right = append(right, plan.Shift(p, -nleft))
		case outputsRight && (typ == plan.InnerJoin || typ == plan.CrossJoin):
			joined = append(joined, p)
		default:
			above = append(above, p)
		}
	}
	lk, rk := j.LeftKeys, j.RightKeys
	onLeft, onRight, rest := splitOnConjuncts(j.Cond, typ, nleft, nright)
	left, right = append(left, onLeft...), append(right, onRight...)
	if len(joined) > 0 {
		l2, r2, res := plan.SplitJoinCondition(plan.Conjoin(joined), nleft)
		lk, rk = append(append([]plan.Expr{}, lk...), l2...), append(append([]plan.Expr{}, rk...), r2...)
		rest = append(rest, plan.SplitConjuncts(res)...)
		if typ == plan.CrossJoin {
			typ = plan.InnerJoin
		}
	}
	for _, c := range rest {
		l, r := impliedSideFilters(c, nleft, nright)
		if l != nil && filtersLeft(typ) {
			left = append(left, l)
		}
		if r != nil && filtersRight(typ) {
			right = append(right, r)
		}
	}
	out := plan.NewJoin(push(j.Left, left), push(j.Right, right), typ, lk, rk, plan.Conjoin(rest))
	return wrap(out, above)
}

// splitOnConjuncts sorts a join's own condition: conjuncts that read one side only and may
// filter that side before the join (ON t.x > 1 of an inner join; ON u.y = 2 of a LEFT,
// semi or anti join, whose right rows failing it can never match) go to left or right (the
// right ones over the right input's columns); the others stay in rest.
func splitOnConjuncts(cond plan.Expr, typ plan.JoinType, nleft, nright int) (left, right, rest []plan.Expr) {
	for _, c := range plan.SplitConjuncts(cond) {
		inLeft, anyCol := plan.ColumnRange(c, 0, nleft)
		inRight, _ := plan.ColumnRange(c, nleft, nleft+nright)
		switch {
		case anyCol && inLeft && filtersLeft(typ):
			left = append(left, c)
		case anyCol && inRight && filtersRight(typ):
			right = append(right, plan.Shift(c, -nleft))
		default:
			rest = append(rest, c)
		}
	}
	return left, right, rest
}

// filtersLeft reports whether a condition of a join of type typ that reads only left
// columns may filter the left input instead: when a left row failing it is dropped by the
// join anyway (not preserved by a LEFT or FULL join, not kept by an anti or mark join).
func filtersLeft(typ plan.JoinType) bool {
	switch typ {
	case plan.InnerJoin, plan.CrossJoin, plan.RightJoin, plan.SemiJoin:
		return true
	}
	return false
}

// filtersRight is filtersLeft for conditions over the right input: a right row failing
// it never matches, which only a RIGHT or FULL join (preserving it) or a mark join (whose
// NULL marks depend on the right rows) could tell.
func filtersRight(typ plan.JoinType) bool {
	switch typ {
	case plan.InnerJoin, plan.CrossJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
		return true
	}
	return false
}
