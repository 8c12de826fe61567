package optimize

import (
	"slices"
	"strings"

	"github.com/flightd/flightd/planner/plan"
)

// factorOr pulls the conjuncts shared by every branch of a disjunction out of it:
// (a AND b) OR (a AND c) becomes a AND (b OR c), so that a join equality repeated in every
// branch (TPC-H q19's p_partkey = l_partkey) becomes a join key rather than a residual over
// a cross product. The rewrite is exact in three-valued logic (AND distributes over OR). A
// branch left without conjuncts makes the remaining OR true, so it is dropped.
func factorOr(e plan.Expr) []plan.Expr {
	branches := splitDisjuncts(e)
	if len(branches) < 2 {
		return []plan.Expr{e}
	}
	conj := make([][]plan.Expr, len(branches))
	for i, b := range branches {
		conj[i] = plan.SplitConjuncts(b)
	}
	var common []plan.Expr
	for _, c := range conj[0] {
		k := exprKey(c)
		if everyBranchHas(conj[1:], k) && !containsKey(common, k) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return []plan.Expr{e}
	}
	var rest []plan.Expr
	for _, cs := range conj {
		var left []plan.Expr
		for _, c := range cs {
			if !containsKey(common, exprKey(c)) {
				left = append(left, c)
			}
		}
		if len(left) == 0 {
			return common // this branch is just the common part: the OR adds nothing
		}
		rest = append(rest, plan.Conjoin(left))
	}
	return append(common, disjoin(rest))
}

func everyBranchHas(conj [][]plan.Expr, k string) bool {
	for _, cs := range conj {
		if !containsKey(cs, k) {
			return false
		}
	}
	return true
}

func containsKey(es []plan.Expr, k string) bool {
	for _, e := range es {
		if exprKey(e) == k {
			return true
		}
	}
	return false
}

// splitDisjuncts returns the operands of a tree of "or" calls.
func splitDisjuncts(e plan.Expr) []plan.Expr {
	if c, ok := e.(*plan.Call); ok && c.Func == "or" && len(c.Args) == 2 {
		return append(splitDisjuncts(c.Args[0]), splitDisjuncts(c.Args[1])...)
	}
	return []plan.Expr{e}
}

// disjoin builds a left-deep "or" of es (at least one).
func disjoin(es []plan.Expr) plan.Expr {
	out := es[0]
	for _, e := range es[1:] {
		out = &plan.Call{Func: "or", Args: []plan.Expr{out, e}, DataType: out.Type(), Null: out.Nullable() || e.Nullable()}
	}
	return out
}

// commutative are the functions whose two operands may be written in either order.
var commutative = map[string]bool{"equal": true, "not_equal": true, "add": true, "multiply": true}

// exprKey identifies an expression structurally: its printed form with the type of every
// node, so that literals or casts that print alike but differ in type do not match.
func exprKey(e plan.Expr) string {
	var sb strings.Builder
	writeKey(&sb, e)
	return sb.String()
}

func writeKey(sb *strings.Builder, e plan.Expr) {
	switch x := e.(type) {
	case *plan.Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = exprKey(a)
		}
		if commutative[x.Func] {
			slices.Sort(args) // a = b matches b = a
		}
		sb.WriteString(x.Func + "(" + strings.Join(args, ",") + ")")
	case *plan.Cast:
		if x.Try {
			sb.WriteString("try_")
		}
		sb.WriteString("cast(")
		writeKey(sb, x.Input)
		sb.WriteString(")")
	default:
		sb.WriteString(e.String())
	}
	sb.WriteString(":" + e.Type().String())
}

// impliedSideFilters derives, from a join condition conjunct that is a disjunction, a
// filter on each side that every row of a matching pair must pass: for (l1 AND r1) OR
// (l2 AND r2), the left side gets l1 OR l2 and the right side r1 OR r2, where li (ri) are
// the conjuncts of branch i that read only left (right) columns (DuckDB's filter pushdown
// of OR-ed conjunctions; TPC-H q19 and q07). A side gets nothing when some branch has no
// conjunct of its own. The derived filters are implied by the condition (if a branch is
// TRUE, its side conjuncts are TRUE), so applying them below the join drops only rows that
// could not have matched; the condition itself stays. Right filters are over the right
// input's columns.
func impliedSideFilters(c plan.Expr, nleft, nright int) (left, right plan.Expr) {
	branches := splitDisjuncts(c)
	if len(branches) < 2 || volatile(c) {
		return nil, nil
	}
	var ls, rs []plan.Expr
	okL, okR := true, true
	for _, b := range branches {
		var bl, br []plan.Expr
		for _, k := range plan.SplitConjuncts(b) {
			inLeft, anyCol := plan.ColumnRange(k, 0, nleft)
			inRight, _ := plan.ColumnRange(k, nleft, nleft+nright)
			switch {
			case anyCol && inLeft:
				bl = append(bl, k)
			case anyCol && inRight:
				br = append(br, plan.Shift(k, -nleft))
			}
		}
		okL, okR = okL && len(bl) > 0, okR && len(br) > 0
		if okL {
			ls = append(ls, plan.Conjoin(bl))
		}
		if okR {
			rs = append(rs, plan.Conjoin(br))
		}
	}
	if okL {
		left = disjoin(ls)
	}
	if okR {
		right = disjoin(rs)
	}
	return left, right
}

// volatileFuncs are functions whose value may differ between two evaluations on one row:
// an expression calling one is never duplicated into a derived filter.
var volatileFuncs = map[string]bool{"random": true, "uuid": true, "gen_random_uuid": true, "nextval": true}

// volatile reports whether e calls a volatile function.
func volatile(e plan.Expr) bool {
	c, ok := e.(*plan.Call)
	if !ok {
		if x, ok := e.(*plan.Cast); ok {
			return volatile(x.Input)
		}
		return false
	}
	if volatileFuncs[c.Func] {
		return true
	}
	for _, a := range c.Args {
		if volatile(a) {
			return true
		}
	}
	return false
}
