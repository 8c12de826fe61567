package bind

import (
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// join flattens a join of a general-mode subquery (flatten.go). Only the side that reads
// outer columns is flattened when the join allows it (an inner join, or a left, semi, anti
// or mark join whose right side is uncorrelated); otherwise both sides carry D and match
// on it NULL-safely. The output is the join's columns followed by D.
func (f *flattener) join(j *plan.Join) (plan.Node, error) {
	flatL, flatR := f.joinSides(j)
	left, right := j.Left, j.Right
	wl, wr := width(left), width(right)
	var err error
	if flatL {
		if left, err = f.flatten(left); err != nil {
			return nil, err
		}
	}
	if flatR {
		if right, err = f.flatten(right); err != nil {
			return nil, err
		}
	}
	nleft := width(left)
	// Outer references read the left side's D when it has one, the right side's otherwise.
	dpos := wl
	if !flatL {
		dpos = nleft + wr
	}
	onCombined := func(e plan.Expr) plan.Expr {
		if e == nil {
			return nil
		}
		e = plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
			if c.Index < wl {
				return c
			}
			x := *c
			x.Index += nleft - wl
			return &x
		})
		return f.local(e, dpos)
	}
	lk := append([]plan.Expr{}, j.LeftKeys...)
	rk := append([]plan.Expr{}, j.RightKeys...)
	conds := []plan.Expr{onCombined(j.Cond)}
	if f.keysLocal(lk) || f.keysLocal(rk) {
		// Keys over outer columns become conditions over both sides.
		for i := range lk {
			eq, err := functions.NewCall("equal", []plan.Expr{onCombined(lk[i]), onCombined(shiftUp(rk[i], wl))})
			if err != nil {
				return nil, err
			}
			conds = append(conds, eq)
		}
		lk, rk = nil, nil
	}
	typ := j.Type
	if flatL && flatR {
		dlk, drk, dcond, err := nullSafeKeys(f.refs(wl), f.refs(wr), nleft)
		if err != nil {
			return nil, err
		}
		lk, rk = append(lk, dlk...), append(rk, drk...)
		conds = append(conds, dcond)
		if typ == plan.CrossJoin {
			typ = plan.InnerJoin
		}
	}
	jn := plan.NewJoin(left, right, typ, lk, rk, conjoinAll(conds))
	return f.joinOutput(jn, j, flatL, wl, wr)
}

// joinSides decides which sides of j are flattened.
func (f *flattener) joinSides(j *plan.Join) (flatL, flatR bool) {
	lc, rc := f.hasLocal(j.Left), f.hasLocal(j.Right)
	switch j.Type {
	case plan.InnerJoin, plan.CrossJoin:
		return lc || !rc, rc // only the join's own expressions read outer columns: the left side
	case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin, plan.MarkJoin:
		return true, rc
	}
	return true, true // RIGHT, FULL: every row of either side needs its D row
}

// joinOutput projects the flattened join jn to j's columns followed by D.
func (f *flattener) joinOutput(jn *plan.Join, j *plan.Join, flatL bool, wl, wr int) (plan.Node, error) {
	k := len(f.cols)
	switch j.Type {
	case plan.SemiJoin, plan.AntiJoin:
		return jn, nil // left columns, then D
	case plan.MarkJoin:
		return moveDomain(jn, wl, k), nil
	}
	s := jn.Schema()
	all := columnRefs(s, s.NumFields())
	nleft := wl
	if flatL {
		nleft += k
	}
	exprs := append(append([]plan.Expr{}, all[:wl]...), all[nleft:nleft+wr]...)
	switch {
	case j.Type == plan.FullJoin:
		for i := range k {
			c, err := functions.NewCall("coalesce", []plan.Expr{all[wl+i], all[nleft+wr+i]})
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, c)
		}
	case j.Type == plan.RightJoin || !flatL:
		exprs = append(exprs, all[nleft+wr:nleft+wr+k]...)
	default:
		exprs = append(exprs, all[wl:wl+k]...)
	}
	names := append(fieldNames(j, wl+wr), domainNames(k)...)
	return plan.NewProject(jn, exprs, names), nil
}

// keysLocal reports whether any of es reads a local outer column.
func (f *flattener) keysLocal(es []plan.Expr) bool {
	for _, e := range es {
		if f.exprLocal(e) {
			return true
		}
	}
	return false
}

// shiftUp moves the column references of e, over a join's right input, after wl left
// columns.
func shiftUp(e plan.Expr, wl int) plan.Expr {
	return plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
		x := *c
		x.Index += wl
		return &x
	})
}

func conjoinAll(es []plan.Expr) plan.Expr {
	var nonNil []plan.Expr
	for _, e := range es {
		if e != nil {
			nonNil = append(nonNil, e)
		}
	}
	if len(nonNil) == 0 {
		return nil
	}
	return plan.Conjoin(nonNil)
}
