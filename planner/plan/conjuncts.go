package plan

import "github.com/apache/arrow-go/v18/arrow"

// SplitConjuncts returns the operands of a tree of "and" calls, left to right; nil gives
// none. The binder, the Substrait consumer and the optimizer all split and rebuild
// conditions with SplitConjuncts and Conjoin, so a condition keeps its shape through a
// round trip.
func SplitConjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	if c, ok := e.(*Call); ok && c.Func == "and" && len(c.Args) == 2 {
		return append(SplitConjuncts(c.Args[0]), SplitConjuncts(c.Args[1])...)
	}
	return []Expr{e}
}

// Conjoin builds a left-deep "and" of es; nil when es is empty.
func Conjoin(es []Expr) Expr {
	var out Expr
	for _, e := range es {
		if out == nil {
			out = e
			continue
		}
		out = &Call{Func: "and", Args: []Expr{out, e}, DataType: arrow.FixedWidthTypes.Boolean, Null: out.Nullable() || e.Nullable()}
	}
	return out
}

// ColumnRange reports whether every column e references lies in [lo, hi), and whether e
// references any column at all.
func ColumnRange(e Expr, lo, hi int) (inside, any bool) {
	inside = true
	Columns(e, func(c *ColumnRef) {
		any = true
		if c.Index < lo || c.Index >= hi {
			inside = false
		}
	})
	return inside, any
}

// Shift returns e with every column index moved by delta.
func Shift(e Expr, delta int) Expr {
	if delta == 0 {
		return e
	}
	return RewriteColumns(e, func(c *ColumnRef) Expr {
		out := *c
		out.Index += delta
		return &out
	})
}

// SplitJoinCondition splits a condition over the concatenation of a left input of nleft
// columns and a right input into equi-join keys (conjuncts equal(l, r) where l reads only
// left columns and r only right columns, in either order) and the remaining residual.
// Right keys are re-indexed over the right input.
func SplitJoinCondition(cond Expr, nleft int) (leftKeys, rightKeys []Expr, residual Expr) {
	var rest []Expr
	for _, c := range SplitConjuncts(cond) {
		l, r, ok := equiKey(c, nleft)
		if !ok {
			rest = append(rest, c)
			continue
		}
		leftKeys = append(leftKeys, l)
		rightKeys = append(rightKeys, Shift(r, -nleft))
	}
	return leftKeys, rightKeys, Conjoin(rest)
}

func equiKey(e Expr, nleft int) (l, r Expr, ok bool) {
	c, isCall := e.(*Call)
	if !isCall || c.Func != "equal" || len(c.Args) != 2 {
		return nil, nil, false
	}
	side := func(x Expr) int { // 0: left only, 1: right only, -1: neither or both
		inLeft, any := ColumnRange(x, 0, nleft)
		switch {
		case !any:
			return -1
		case inLeft:
			return 0
		}
		if inRight, _ := ColumnRange(x, nleft, 1<<31-1); inRight {
			return 1
		}
		return -1
	}
	a, b := side(c.Args[0]), side(c.Args[1])
	switch {
	case a == 0 && b == 1:
		return c.Args[0], c.Args[1], true
	case a == 1 && b == 0:
		return c.Args[1], c.Args[0], true
	}
	return nil, nil, false
}
