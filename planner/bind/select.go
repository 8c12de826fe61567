package bind

import (
	"strconv"
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
	input  plan.Node // the FROM clause after WHERE, grown by subquery joins
	onCols []int     // DISTINCT ON keys: projection columns, like ORDER BY keys
	items  []selectItem
	agg    *aggContext
	exprs  []plan.Expr // bound select list (over the aggregate output when agg != nil)
	hidden []plan.Expr // ORDER BY expressions not in the select list
	// havingSubs are HAVING's scalar subqueries, joined onto the aggregate once it is built.
	havingSubs *deferredSubqueries
}

func (b *binder) bindSelect(s *ast.Select) (plan.Node, error) {
	if sets, ok, err := groupingSets(s.GroupBy); err != nil {
		return nil, errAt(err, s.Pos)
	} else if ok || len(s.GroupBy) > 0 && usesGrouping(s) {
		return b.bindGroupingSets(s, sets)
	}
	var node plan.Node = plan.NewValues(arrow.NewSchema(nil, nil), [][]plan.Expr{{}})
	sc := &scope{}
	if s.From != nil {
		var err error
		if node, sc, err = b.bindFromItem(s.From); err != nil {
			return nil, err
		}
	}
	sc.outer, sc.corr = b.outer, b.corr
	node, err := b.bindWhere(node, sc, s.Where)
	if err != nil {
		return nil, err
	}
	st := &selectState{b: b, s: s, in: sc, input: node}
	if st.items, err = expandStars(s.Items, sc); err != nil {
		return nil, err
	}
	return st.plan()
}

// bindWhere binds WHERE: EXISTS, NOT EXISTS and IN (subquery) conjuncts become semi and anti
// joins, correlation equalities of a correlated subquery are set aside, and the rest becomes
// a Filter.
func (b *binder) bindWhere(node plan.Node, sc *scope, where ast.Expr) (plan.Node, error) {
	if where == nil {
		return node, nil
	}
	var conds []plan.Expr
	for _, c := range astConjuncts(where) {
		var ok bool
		var err error
		if node, ok, err = b.semiJoin(node, sc, c); err != nil {
			return nil, errAt(err, c.Position())
		} else if ok {
			continue
		}
		eb := &exprBinder{b: b, scope: sc, clause: "WHERE clause", input: &node}
		cond, err := eb.bind(c)
		if err != nil {
			return nil, err
		}
		if cond, err = asPredicate(cond, "WHERE", c.Position()); err != nil {
			return nil, err
		}
		if sc.corr != nil && !sc.corr.general && hasOuter(cond) {
			if err := sc.corr.add(cond); err != nil {
				return nil, errAt(err, c.Position())
			}
			continue
		}
		conds = append(conds, cond)
	}
	if len(conds) == 0 {
		return node, nil
	}
	return &plan.Filter{Input: node, Cond: plan.Conjoin(conds)}, nil
}

// astConjuncts splits e at top-level ANDs.
func astConjuncts(e ast.Expr) []ast.Expr {
	if b, ok := e.(*ast.Binary); ok && b.Op == "AND" {
		return append(astConjuncts(b.L), astConjuncts(b.R)...)
	}
	return []ast.Expr{e}
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
		if it.StarTable != "" && !sc.hasRel(it.StarTable) {
			return nil, dberr.New(dberr.Binder, "Referenced table %q not found!", it.StarTable).At(it.Pos.Line, it.Pos.Column)
		}
		n := len(out)
		used := map[string]bool{}
		for _, c := range sc.cols {
			if c.system || it.StarTable == "" && c.hidden || it.StarTable != "" && !strings.EqualFold(c.rel, it.StarTable) {
				continue
			}
			if name, ok := findName(it.Exclude, c.field.Name); ok {
				used[name] = true
				continue
			}
			var e ast.Expr = &ast.BoundColumn{Pos: it.Pos, Name: c.field.Name, Ref: colRef(c)}
			for _, r := range it.Replace {
				if strings.EqualFold(r.Alias, c.field.Name) {
					e, used[r.Alias] = r.Expr, true
				}
			}
			out = append(out, selectItem{expr: e, name: c.field.Name})
		}
		for _, name := range append(append([]string{}, it.Exclude...), replaceNames(it.Replace)...) {
			if !used[name] {
				return nil, dberr.New(dberr.Binder, "Column %q in EXCLUDE/REPLACE list not found in FROM clause", name).At(it.Pos.Line, it.Pos.Column)
			}
		}
		if len(out) == n {
			return nil, dberr.New(dberr.Binder, "SELECT * with no columns").At(it.Pos.Line, it.Pos.Column)
		}
	}
	return out, nil
}

// findName finds name among names, case-insensitively, returning the spelling in names.
func findName(names []string, name string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

func replaceNames(items []ast.SelectItem) []string {
	out := make([]string, len(items))
	for i, r := range items {
		out[i] = r.Alias
	}
	return out
}

// defaultName is DuckDB's output name for an unaliased expression: the column's own name
// for a column reference, the expression's text otherwise.
func defaultName(e ast.Expr, sc *scope) string {
	if ref, ok := e.(*ast.ColumnRef); ok {
		if c, err := sc.find(ref); err == nil {
			return c.field.Name
		}
		if len(ref.Parts) > 1 { // a struct field, s.a (struct_expr.go)
			return ref.Parts[len(ref.Parts)-1]
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

// plan builds Aggregate, HAVING, Project, DISTINCT, Sort and Limit above st.input.
func (st *selectState) plan() (plan.Node, error) {
	win, err := newWindowContext(st.s.Windows)
	if err != nil {
		return nil, errAt(err, st.s.Pos)
	}
	eb := &exprBinder{b: st.b, scope: st.in, clause: "SELECT list", input: &st.input, win: win, unnest: &unnestContext{}}
	if st.isAggregateQuery() {
		if err := st.bindGroups(); err != nil {
			return nil, err
		}
		eb.agg = st.agg
		eb.input = nil
		st.havingSubs = &deferredSubqueries{agg: st.agg} // scalar subqueries: grouped_subquery.go
		eb.deferred = st.havingSubs
	}
	if err := st.checkCorrelated(); err != nil {
		return nil, err
	}
	for _, it := range st.items {
		e, err := eb.bind(it.expr)
		if err != nil {
			return nil, err
		}
		if _, isParam := e.(*paramRef); isParam && !st.s.UntypedNulls {
			// Untyped expressions keep DuckDB's type "NULL" (NULL literals, unnest(NULL),
			// columns of them); a bare parameter is INTEGER.
			e, _ = functions.Cast(e, arrow.PrimitiveTypes.Int32)
		}
		st.exprs = append(st.exprs, e)
	}
	having, err := st.bindHaving()
	if err != nil {
		return nil, err
	}
	keys, err := st.bindOrderBy(eb)
	if err != nil {
		return nil, err
	}
	qualify, err := st.bindQualify(eb)
	if err != nil {
		return nil, err
	}
	if err := st.bindDistinctOn(eb); err != nil {
		return nil, err
	}
	node := st.input
	if st.agg != nil {
		st.filterDomainAggs() // domain.go
		// the aggregate, sorted for ORDER BY inside aggregates (agg_order.go)
		if node, err = st.agg.newAggregate(node); err != nil {
			return nil, err
		}
		if node, err = st.attachSubqueries(node, &having); err != nil { // grouped_subquery.go
			return nil, err
		}
		if having != nil {
			node = &plan.Filter{Input: node, Cond: having}
		}
	}
	if node, err = st.addWindow(node, win, qualify); err != nil {
		return nil, err
	}
	if node, err = st.addUnnest(node, eb.unnest); err != nil { // unnest.go
		return nil, err
	}
	return st.finish(node, keys)
}

func (st *selectState) bindHaving() (plan.Expr, error) {
	if st.s.Having == nil {
		return nil, nil
	}
	hb := &exprBinder{b: st.b, scope: st.in, agg: st.agg, clause: "HAVING clause", deferred: st.havingSubs}
	h, err := hb.bind(st.s.Having)
	if err != nil {
		return nil, err
	}
	return asPredicate(h, "HAVING", st.s.Having.Position())
}

func (st *selectState) bindQualify(eb *exprBinder) (plan.Expr, error) {
	if st.s.Qualify == nil {
		return nil, nil
	}
	qb := *eb
	qb.clause = "QUALIFY clause"
	qb.aliases = st.items
	q, err := qb.bind(st.s.Qualify)
	if err != nil {
		return nil, err
	}
	return asPredicate(q, "QUALIFY", st.s.Qualify.Position())
}

// addWindow puts the window functions (and QUALIFY) above node and points the bound
// expressions at their output columns.
func (st *selectState) addWindow(node plan.Node, win *windowContext, qualify plan.Expr) (plan.Node, error) {
	if len(win.funcs) == 0 {
		if qualify != nil {
			return &plan.Filter{Input: node, Cond: qualify}, nil
		}
		return node, nil
	}
	if c := st.in.corr; c != nil && len(c.inner) > 0 {
		return nil, dberr.NotSupported("window functions in correlated subqueries").At(st.s.Pos.Line, st.s.Pos.Column)
	}
	width := node.Schema().NumFields()
	w := plan.NewWindow(node, win.funcs)
	for i, e := range st.exprs {
		st.exprs[i] = replaceWindowRefs(e, w, width)
	}
	for i, e := range st.hidden {
		st.hidden[i] = replaceWindowRefs(e, w, width)
	}
	if qualify != nil {
		return &plan.Filter{Input: w, Cond: replaceWindowRefs(qualify, w, width)}, nil
	}
	return w, nil
}

// bindGroups binds the GROUP BY keys over the input. A key may be an ordinal or the alias
// of a select-list item.
func (st *selectState) bindGroups() error {
	if err := st.decorrelateDomain(); err != nil { // domain.go
		return err
	}
	st.agg = &aggContext{input: st.in}
	if c := st.in.corr; c != nil {
		c.aggregated = true
		// A correlated aggregate is computed per correlation key.
		for i, e := range c.inner {
			st.agg.groups = append(st.agg.groups, e)
			st.agg.names = append(st.agg.names, "__corr"+strconv.Itoa(i))
		}
	}
	eb := &exprBinder{b: st.b, scope: st.in, clause: "GROUP BY clause"}
	groupBy := st.s.GroupBy
	if len(groupBy) == 1 {
		if all, ok := groupBy[0].(*ast.GroupAll); ok {
			// GROUP BY ALL: every select item without an aggregate, by ordinal.
			groupBy = nil
			for i, it := range st.items {
				if !containsAggregate(it.expr) {
					groupBy = append(groupBy, &ast.Literal{Pos: all.Pos, Kind: ast.LitInt, Text: strconv.Itoa(i + 1)})
				}
			}
		}
	}
	for _, g := range groupBy {
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
