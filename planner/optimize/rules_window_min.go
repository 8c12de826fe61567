package optimize

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// windowMins turns a decorrelated min/max subquery that repeats the outer query's joins
// (TPC-H q02) into a window over the outer join. It runs on the bound plan, before filter
// pushdown, and matches
//
//	Filter(C, Join(left|inner, L, R, keys=[Lk = corr]))
//	R = Aggregate([corr], [single_value(m)], Project(Aggregate([corr := g], [min|max(x)], X)))
//
// where C holds a conjunct a = m. Let region(L) be the inner/cross joins and filters of L
// down to its scans, together with the L-only conjuncts of C. The rule applies when X's
// region equals region(L) minus one scan P: same scans (compared by plan text, each at most
// once), the same conditions (columns written as (scan, column)), and the only conditions
// of region(L) that read P are P-only filters plus one equality P.c = y with y the column g
// reads. Lk must be P.c or y and a the column x reads. Then each row r of region(L) joins
// with the subquery's group g = Lk(r) (non-NULL: the equality dropped NULL keys), whose rows
// are exactly the X rows of the region(L) rows sharing Lk(r) (P only multiplies them, which
// min and max ignore), so m = min(a) OVER (PARTITION BY Lk) over region(L). The replacement
// is Filter(C minus the L-only conjuncts, Project(join schema, Window(Filter(L-only, L)))).
func windowMins(n plan.Node) plan.Node {
	return transformUp(n, func(n plan.Node) plan.Node {
		if f, ok := n.(*plan.Filter); ok {
			if out := windowMin(f); out != nil {
				return out
			}
		}
		return n
	})
}

// minSubquery is the matched right side of the join: the aggregate, the indices of its
// correlation and value columns in the join's right input.
type minSubquery struct {
	agg      *plan.Aggregate // the inner aggregate: group [g], aggs [min|max(x)]
	corr, m  int             // R's output columns holding the group key and the min
	g, x     int             // X's columns the group key and the aggregate read
	xRegion  plan.Node       // X
	function string
}

// windowMin rewrites one matching filter, or returns nil.
func windowMin(f *plan.Filter) plan.Node {
	j, ok := f.Input.(*plan.Join)
	if !ok || (j.Type != plan.LeftJoin && j.Type != plan.InnerJoin) || j.Cond != nil || len(j.LeftKeys) != 1 {
		return nil
	}
	sub, ok := matchMinSubquery(j.Right)
	if !ok {
		return nil
	}
	lk, lkOK := j.LeftKeys[0].(*plan.ColumnRef)
	rk, rkOK := j.RightKeys[0].(*plan.ColumnRef)
	nl := j.Left.Schema().NumFields()
	if !lkOK || !rkOK || rk.Index != sub.corr || arrow.IsFloating(lk.DataType.ID()) {
		return nil // floating keys: equality and partitioning may differ on NaN and -0
	}
	var below, above []plan.Expr
	a := -1
	for _, c := range plan.SplitConjuncts(f.Cond) {
		if inside, _ := plan.ColumnRange(c, 0, nl); inside {
			below = append(below, c)
			continue
		}
		above = append(above, c)
		if col, ok := equalsColumn(c, nl+sub.m); ok && col < nl && a < 0 {
			a = col
		} else if _, any := plan.ColumnRange(c, nl, j.Schema().NumFields()); any {
			return nil // another use of the subquery's columns
		}
	}
	if a < 0 {
		return nil
	}
	region := plan.Node(j.Left)
	if len(below) > 0 {
		region = &plan.Filter{Input: j.Left, Cond: plan.Conjoin(below)}
	}
	if !sameRegionMinusOne(region, sub, lk.Index, a) {
		return nil
	}
	return rebuildAsWindow(f, j, region, sub, lk, a, above)
}

// equalsColumn reports the other column of an equality c between two columns, one of which
// is col.
func equalsColumn(c plan.Expr, col int) (int, bool) {
	call, ok := c.(*plan.Call)
	if !ok || call.Func != "equal" || len(call.Args) != 2 {
		return 0, false
	}
	l, lok := call.Args[0].(*plan.ColumnRef)
	r, rok := call.Args[1].(*plan.ColumnRef)
	switch {
	case !lok || !rok:
		return 0, false
	case r.Index == col:
		return l.Index, true
	case l.Index == col:
		return r.Index, true
	}
	return 0, false
}

// matchMinSubquery matches Aggregate([corr], [single_value(m)], Project(Aggregate([g],
// [min|max(x)], X))) with every projection a column reference.
func matchMinSubquery(n plan.Node) (minSubquery, bool) {
	var sub minSubquery
	outer, ok := n.(*plan.Aggregate)
	if !ok || len(outer.GroupBy) != 1 || len(outer.Aggs) != 1 || !plainAgg(outer.Aggs[0], "single_value") {
		return sub, false
	}
	p, ok := outer.Input.(*plan.Project)
	if !ok {
		return sub, false
	}
	inner, ok := p.Input.(*plan.Aggregate)
	if !ok || len(inner.GroupBy) != 1 || len(inner.Aggs) != 1 {
		return sub, false
	}
	agg := inner.Aggs[0]
	if !plainAgg(agg, "min") && !plainAgg(agg, "max") {
		return sub, false
	}
	through := func(e plan.Expr) int { // the inner aggregate's column e reads via p, or -1
		c, ok := e.(*plan.ColumnRef)
		if !ok {
			return -1
		}
		if pc, ok := p.Exprs[c.Index].(*plan.ColumnRef); ok {
			return pc.Index
		}
		return -1
	}
	g, gok := inner.GroupBy[0].(*plan.ColumnRef)
	x, xok := agg.Args[0].(*plan.ColumnRef)
	if through(outer.GroupBy[0]) != 0 || through(outer.Aggs[0].Args[0]) != 1 || !gok || !xok {
		return sub, false
	}
	return minSubquery{agg: inner, corr: 0, m: 1, g: g.Index, x: x.Index, xRegion: inner.Input, function: agg.Func}, true
}

// plainAgg reports whether a is fn over one column, without DISTINCT or FILTER.
func plainAgg(a plan.AggCall, fn string) bool {
	return a.Func == fn && len(a.Args) == 1 && !a.Distinct && a.Filter == nil
}

// rebuildAsWindow builds Filter(above, Project(join schema, Window(region, fn(a) OVER
// (PARTITION BY lk)))).
func rebuildAsWindow(f *plan.Filter, j *plan.Join, region plan.Node, sub minSubquery, lk *plan.ColumnRef, a int, above []plan.Expr) plan.Node {
	ls := region.Schema()
	agg := sub.agg.Aggs[0]
	col := func(i int) *plan.ColumnRef {
		fd := ls.Field(i)
		return &plan.ColumnRef{Index: i, Name: fd.Name, DataType: fd.Type, Null: fd.Nullable}
	}
	w := plan.NewWindow(region, []plan.WindowFunc{{
		Func: sub.function, Args: []plan.Expr{col(a)}, PartitionBy: []plan.Expr{col(lk.Index)},
		DataType: agg.DataType, Null: true, Name: agg.Name,
	}})
	js := j.Schema()
	nl := ls.NumFields()
	exprs := make([]plan.Expr, js.NumFields())
	names := make([]string, js.NumFields())
	for i := range exprs {
		names[i] = js.Field(i).Name
		switch i - nl {
		case sub.corr:
			exprs[i] = col(lk.Index)
		case sub.m:
			exprs[i] = &plan.ColumnRef{Index: nl, Name: agg.Name, DataType: agg.DataType, Null: true}
		default:
			if i >= nl {
				return f // a right column other than corr and m: not the matched shape
			}
			exprs[i] = col(i)
		}
		if !arrow.TypeEqual(exprs[i].Type(), js.Field(i).Type) {
			return f
		}
	}
	return &plan.Filter{Input: plan.NewProject(w, exprs, names), Cond: plan.Conjoin(above)}
}

// colStride separates the column ids of different scans in a region: scan k's column c is
// k*colStride + c.
const colStride = 1 << 20

// condition is one conjunct of a region with its columns renumbered to region-wide ids.
type condition struct {
	text string
	ids  []int
}

// sameRegionMinusOne checks the rule's condition (see windowMins) for the region l, the
// subquery sub, the partition key lk and the window argument a (columns of l).
func sameRegionMinusOne(l plan.Node, sub minSubquery, lk, a int) bool {
	lLeaves, xLeaves := scanTexts(l, nil), scanTexts(sub.xRegion, nil)
	if len(lLeaves) != len(xLeaves)+1 || hasDuplicate(lLeaves) || hasDuplicate(xLeaves) {
		return false
	}
	lCols, lConds, ok := regionConds(l, func(k int) int { return k })
	if !ok {
		return false
	}
	xCols, xConds, ok := regionConds(sub.xRegion, func(k int) int { return slices.Index(lLeaves, xLeaves[k]) })
	if !ok || slices.Contains(xCols, -1) {
		return false
	}
	p := -1
	for k, s := range lLeaves {
		if !slices.Contains(xLeaves, s) {
			p = k
		}
	}
	inP := func(id int) bool { return id/colStride == p }
	var rest []string
	pc, y := -1, -1
	for _, c := range lConds {
		np := 0
		for _, id := range c.ids {
			if inP(id) {
				np++
			}
		}
		switch {
		case np == 0:
			rest = append(rest, c.text)
		case np == len(c.ids): // a filter of P alone
		case pc >= 0 || !strings.HasPrefix(c.text, "equal(") || len(c.ids) != 2 || np != 1 || !isColumnEquality(c.text):
			return false
		case inP(c.ids[0]):
			pc, y = c.ids[0], c.ids[1]
		default:
			pc, y = c.ids[1], c.ids[0]
		}
	}
	xTexts := make([]string, len(xConds))
	for i, c := range xConds {
		xTexts[i] = c.text
	}
	slices.Sort(rest)
	slices.Sort(xTexts)
	return pc >= 0 && slices.Equal(slices.Compact(rest), slices.Compact(xTexts)) &&
		xCols[sub.g] == y && (lCols[lk] == pc || lCols[lk] == y) && lCols[a] == xCols[sub.x]
}

// isColumnEquality reports whether text is "equal(#i, #j)".
func isColumnEquality(text string) bool {
	inner, ok := strings.CutPrefix(text, "equal(#")
	return ok && strings.Count(inner, "#") == 1 && !strings.ContainsAny(inner, "(")
}

// scanTexts lists the single-line plan text of every scan of a region, left to right.
func scanTexts(n plan.Node, out []string) []string {
	if s, ok := n.(*plan.Scan); ok {
		return append(out, strings.TrimSpace(plan.Explain(s)))
	}
	for _, k := range n.Children() {
		out = scanTexts(k, out)
	}
	return out
}

func hasDuplicate(s []string) bool {
	c := slices.Clone(s)
	slices.Sort(c)
	return len(slices.Compact(c)) != len(s)
}

// regionConds walks inner/cross joins and filters down to scans, numbering scan k's columns
// with leafID(k)*colStride; it returns the ids of n's output columns and the conditions.
// ok is false when the region holds any other node.
func regionConds(n plan.Node, leafID func(k int) int) (cols []int, conds []condition, ok bool) {
	next := 0
	var walk func(plan.Node) ([]int, bool)
	walk = func(n plan.Node) ([]int, bool) {
		switch n := n.(type) {
		case *plan.Scan:
			id := leafID(next)
			next++
			ids := make([]int, n.Schema().NumFields())
			for i := range ids {
				ids[i] = id*colStride + i
				if id < 0 {
					ids[i] = -1
				}
			}
			return ids, true
		case *plan.Filter:
			ids, ok := walk(n.Input)
			if !ok { // ids are not the input's columns (a derived table, say)
				return nil, false
			}
			conds = appendConds(conds, n.Cond, ids)
			return ids, true
		case *plan.Join:
			if n.Type != plan.InnerJoin && n.Type != plan.CrossJoin {
				return nil, false
			}
			l, lok := walk(n.Left)
			r, rok := walk(n.Right)
			if !lok || !rok {
				return nil, false
			}
			ids := append(slices.Clone(l), r...)
			for i := range n.LeftKeys {
				conds = appendConds(conds, n.LeftKeys[i], l)
				k := len(conds) - 1
				conds[k] = equality(conds[k], n.RightKeys[i], r)
			}
			conds = appendConds(conds, n.Cond, ids)
			return ids, true
		}
		return nil, false
	}
	cols, ok = walk(n)
	return cols, conds, ok
}

// appendConds appends the conjuncts of e (over columns with the given ids) as conditions.
func appendConds(conds []condition, e plan.Expr, ids []int) []condition {
	for _, c := range plan.SplitConjuncts(e) {
		conds = append(conds, renumber(c, ids))
	}
	return conds
}

// renumber writes c's columns as region-wide ids; the two sides of an equality are ordered.
func renumber(c plan.Expr, ids []int) condition {
	var used []int
	out := plan.RewriteColumns(c, func(r *plan.ColumnRef) plan.Expr {
		used = append(used, ids[r.Index])
		return &plan.ColumnRef{Index: ids[r.Index], DataType: r.DataType}
	})
	if call, ok := out.(*plan.Call); ok && call.Func == "equal" && len(call.Args) == 2 {
		a, b := call.Args[0].String(), call.Args[1].String()
		if b < a {
			cp := *call
			cp.Args = []plan.Expr{call.Args[1], call.Args[0]}
			out = &cp
			slices.Reverse(used)
		}
	}
	return condition{text: out.String(), ids: used}
}

// equality turns the key condition l (one side, already renumbered) and the right key e
// into the renumbered equality of both.
func equality(l condition, e plan.Expr, ids []int) condition {
	r := renumber(e, ids)
	a, b := l, r
	if b.text < a.text {
		a, b = b, a
	}
	return condition{text: "equal(" + a.text + ", " + b.text + ")", ids: append(slices.Clone(a.ids), b.ids...)}
}
