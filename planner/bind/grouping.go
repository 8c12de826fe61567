package bind

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// maxGroupingSets bounds the UNION ALL a GROUP BY with grouping sets expands into.
const maxGroupingSets = 64

// groupingSets lists the grouping sets of a GROUP BY: the cartesian product of its items
// (a plain expression is one set of one expression). ok is false when there is no ROLLUP,
// CUBE or GROUPING SETS.
func groupingSets(groupBy []ast.Expr) (sets [][]ast.Expr, ok bool, err error) {
	sets = [][]ast.Expr{{}}
	for _, g := range groupBy {
		item := [][]ast.Expr{{g}}
		if gs, isSets := g.(*ast.GroupingSets); isSets {
			item, ok = gs.Sets, true
		}
		var next [][]ast.Expr
		for _, s := range sets {
			for _, t := range item {
				next = append(next, append(append([]ast.Expr{}, s...), t...))
			}
		}
		if len(next) > maxGroupingSets {
			return nil, false, dberr.NotSupported("more than 64 grouping sets")
		}
		sets = next
	}
	return sets, ok, nil
}

// bindGroupingSets plans GROUP BY ROLLUP/CUBE/GROUPING SETS as the UNION ALL of one
// aggregate query per grouping set, in which the grouping expressions outside the set are
// NULL and GROUPING() calls are the constant of that set. ORDER BY and LIMIT apply to the
// union.
func (b *binder) bindGroupingSets(s *ast.Select, sets [][]ast.Expr) (plan.Node, error) {
	var all []ast.Expr
	seen := map[string]bool{}
	for _, set := range sets {
		for _, e := range set {
			if k := ast.SQL(e); !seen[k] {
				seen[k] = true
				all = append(all, e)
			}
		}
	}
	if err := checkGroupingCalls(s, all); err != nil {
		return nil, err
	}
	if len(sets) == 1 {
		branch := groupingBranch(s, sets[0], all)
		branch.OrderBy, branch.Limit, branch.Offset = s.OrderBy, s.Limit, s.Offset
		return b.bindSelect(branch)
	}
	var union ast.Statement
	for _, set := range sets {
		branch := groupingBranch(s, set, all)
		if union == nil {
			union = branch
			continue
		}
		union = &ast.SetOp{Pos: s.Pos, Op: "UNION", All: true, Left: union, Right: branch}
	}
	op := union.(*ast.SetOp)
	op.OrderBy, op.Limit, op.Offset = s.OrderBy, s.Limit, s.Offset
	return b.bindSetOp(op)
}

// groupingBranch is s grouped by set, with the other grouping expressions replaced by NULL
// in the select list and HAVING.
func groupingBranch(s *ast.Select, set, all []ast.Expr) *ast.Select {
	in := map[string]bool{}
	for _, e := range set {
		in[ast.SQL(e)] = true
	}
	null := func(e ast.Expr) (ast.Expr, bool) {
		if g, ok := groupingValue(e, in); ok {
			return g, true
		}
		k := ast.SQL(e)
		for _, g := range all {
			if !in[k] && ast.SQL(g) == k {
				return &ast.Literal{Pos: e.Position(), Kind: ast.LitNull, Text: "NULL"}, true
			}
		}
		return nil, false
	}
	out := *s
	out.GroupBy = set
	out.OrderBy, out.Limit, out.Offset = nil, nil, nil
	out.Items = make([]ast.SelectItem, len(s.Items))
	for i, it := range s.Items {
		if !it.Star && it.Alias == "" {
			// Keep the column's name: DuckDB names the output after the expression.
			it.Alias = ast.Format(it.Expr)
			if ref, ok := it.Expr.(*ast.ColumnRef); ok {
				it.Alias = ref.Parts[len(ref.Parts)-1]
			}
		}
		if it.Expr != nil {
			it.Expr = ast.Replace(it.Expr, null)
		}
		out.Items[i] = it
	}
	out.UntypedNulls = true
	out.Having = ast.Replace(s.Having, null)
	if out.Having == nil && len(set) == 0 {
		// An empty grouping set still aggregates: one row.
		out.Having = &ast.Literal{Pos: s.Pos, Kind: ast.LitBool, Text: "TRUE"}
	}
	if len(set) == 0 && !selectHasAggregate(s) && !containsAggregate(out.Having) {
		// Substrait's aggregate needs a grouping or a measure: count(*) >= 0 is one.
		out.Having = &ast.Binary{Pos: s.Pos, Op: "AND", L: out.Having, R: alwaysTrueMeasure(s.Pos)}
	}
	return &out
}
