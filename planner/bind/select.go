package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// selectItem is one output column before binding: an expression and its output name.
type selectItem struct {
	expr  ast.Expr
	name  string
	alias bool // name came from AS
}

// selectState is the state of binding one SELECT.
type selectState struct {
	b      *binder
	s      *ast.Select
	in     *scope
	items  []selectItem
	agg    *aggContext
	exprs  []plan.Expr // bound select list (over the aggregate output when agg != nil)
	hidden []plan.Expr // ORDER BY expressions not in the select list
}

func (b *binder) bindSelect(s *ast.Select) (plan.Node, error) {
	if s.From == nil {
		return nil, dberr.NotSupported("SELECT without FROM").At(s.Pos.Line, s.Pos.Column)
	}
	t, sc, err := b.bindFrom(s.From)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(t.Schema().Fields()))
	for i := range cols {
		cols[i] = i
	}
	var node plan.Node = plan.NewScan(t, cols)
	if node, err = b.bindWhere(node, sc, s.Where); err != nil {
		return nil, err
	}
	st := &selectState{b: b, s: s, in: sc}
	if st.items, err = expandStars(s.Items, sc); err != nil {
		return nil, err
	}
	return st.plan(node)
}

func (b *binder) bindWhere(node plan.Node, sc *scope, where ast.Expr) (plan.Node, error) {
	if where == nil {
		return node, nil
	}
	eb := &exprBinder{b: b, scope: sc, clause: "WHERE clause"}
	cond, err := eb.bind(where)
	if err != nil {
		return nil, err
	}
	if cond, err = asPredicate(cond, "WHERE", where.Position()); err != nil {
		return nil, err
	}
	return &plan.Filter{Input: node, Cond: cond}, nil
}

// asPredicate checks that a filter condition is boolean (a NULL literal counts as one).
func asPredicate(e plan.Expr, clause string, pos ast.Pos) (plan.Expr, error) {
	switch e.Type().ID() {
	case arrow.BOOL:
		return e, nil
	case arrow.NULL:
		return &plan.Cast{Input: e, DataType: arrow.FixedWidthTypes.Boolean}, nil
	}
	return nil, dberr.New(dberr.Binder, "%s clause must be BOOLEAN, not %s", clause, e.Type()).At(pos.Line, pos.Column)
}

// expandStars replaces * and t.* by the table's columns.
func expandStars(items []ast.SelectItem, sc *scope) ([]selectItem, error) {
	var out []selectItem
	for _, it := range items {
		if !it.Star {
			name, alias := it.Alias, it.Alias != ""
			if !alias {
				name = defaultName(it.Expr, sc)
			}
			out = append(out, selectItem{expr: it.Expr, name: name, alias: alias})
			continue
		}
		if it.StarTable != "" && !sc.qualifierMatches(it.StarTable) {
			return nil, dberr.New(dberr.Binder, "Referenced table %q not found!", it.StarTable).At(it.Pos.Line, it.Pos.Column)
		}
		for _, f := range sc.schema.Fields() {
			out = append(out, selectItem{expr: &ast.ColumnRef{Pos: it.Pos, Parts: []string{f.Name}}, name: f.Name})
		}
	}
	return out, nil
}

// defaultName is DuckDB's output name for an unaliased expression: the column's own name
// for a column reference, the expression's text otherwise.
func defaultName(e ast.Expr, sc *scope) string {
	if ref, ok := e.(*ast.ColumnRef); ok {
		if idx := sc.lookup(ref.Parts[len(ref.Parts)-1]); idx >= 0 {
			return sc.schema.Field(idx).Name
		}
	}
	return ast.Format(e)
}

// isAggregateQuery reports whether the query groups or aggregates.
func (st *selectState) isAggregateQuery() bool {
	if len(st.s.GroupBy) > 0 || st.s.Having != nil {
		return true
	}
	for _, it := range st.items {
		if containsAggregate(it.expr) {
			return true
		}
	}
	for _, o := range st.s.OrderBy {
		if containsAggregate(o.Expr) {
			return true
		}
	}
	return false
}

// plan builds Aggregate, HAVING, Project, DISTINCT, Sort and Limit above node.
func (st *selectState) plan(node plan.Node) (plan.Node, error) {
	eb := &exprBinder{b: st.b, scope: st.in, clause: "SELECT list"}
	if st.isAggregateQuery() {
		if err := st.bindGroups(); err != nil {
			return nil, err
		}
		eb.agg = st.agg
	}
	for _, it := range st.items {
		e, err := eb.bind(it.expr)
		if err != nil {
			return nil, err
		}
		if e.Type().ID() == arrow.NULL {
			// DuckDB outputs an untyped NULL as INTEGER.
			e, _ = functions.Cast(e, arrow.PrimitiveTypes.Int32)
		}
		st.exprs = append(st.exprs, e)
	}
	var having plan.Expr
	if st.s.Having != nil {
		hb := &exprBinder{b: st.b, scope: st.in, agg: st.agg, clause: "HAVING clause"}
		h, err := hb.bind(st.s.Having)
		if err != nil {
			return nil, err
		}
		if having, err = asPredicate(h, "HAVING", st.s.Having.Position()); err != nil {
			return nil, err
		}
	}
	keys, err := st.bindOrderBy(eb)
	if err != nil {
		return nil, err
	}
	if st.agg != nil {
		node = plan.NewAggregate(node, st.agg.groups, st.agg.names, st.agg.aggs)
		if having != nil {
			node = &plan.Filter{Input: node, Cond: having}
		}
	}
	return st.finish(node, keys)
}

// bindGroups binds the GROUP BY keys over the input. A key may be an ordinal or the alias
// of a select-list item.
func (st *selectState) bindGroups() error {
	st.agg = &aggContext{input: st.in}
	eb := &exprBinder{b: st.b, scope: st.in, clause: "GROUP BY clause"}
	for _, g := range st.s.GroupBy {
		e := g
		name := ""
		if it, ok, err := st.selectRef(g, true); err != nil {
			return err
		} else if ok {
			e, name = it.expr, it.name
			if containsAggregate(e) {
				return dberr.New(dberr.Binder, "GROUP BY clause cannot contain aggregates!").At(g.Position().Line, g.Position().Column)
			}
		}
		bound, err := eb.bind(e)
		if err != nil {
			return err
		}
		if name == "" {
			name = defaultName(e, st.in)
		}
		st.agg.groups = append(st.agg.groups, bound)
		st.agg.names = append(st.agg.names, name)
	}
	return nil
}

// selectRef resolves an ordinal (2) or a select-list alias to its item. Aliases only count
// when the name is not also an input column (DuckDB prefers the column in GROUP BY);
// in ORDER BY, preferColumn is false and the alias wins.
func (st *selectState) selectRef(e ast.Expr, preferColumn bool) (selectItem, bool, error) {
	switch e := e.(type) {
	case *ast.Literal:
		if e.Kind != ast.LitInt {
			return selectItem{}, false, nil
		}
		n, err := intLiteral(e.Text)
		k, ok := int64(0), false
		if err == nil {
			k, ok = int64Of(n)
		}
		if !ok || k < 1 || k > int64(len(st.items)) {
			return selectItem{}, false, dberr.New(dberr.Binder, "term out of range - should be between 1 and %d", len(st.items)).At(e.Pos.Line, e.Pos.Column)
		}
		return st.items[k-1], true, nil
	case *ast.ColumnRef:
		if len(e.Parts) != 1 || (preferColumn && st.in.lookup(e.Parts[0]) >= 0) {
			return selectItem{}, false, nil
		}
		for _, it := range st.items {
			if it.alias && strings.EqualFold(it.name, e.Parts[0]) {
				return it, true, nil
			}
		}
	}
	return selectItem{}, false, nil
}

func int64Of(e plan.Expr) (int64, bool) {
	lit, ok := e.(*plan.Literal)
	if !ok {
		return 0, false
	}
	return functions.IntValue(lit.Value)
}
