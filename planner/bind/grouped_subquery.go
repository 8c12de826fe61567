package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Scalar subqueries in a grouped query's select list, HAVING and ORDER BY are joined onto
// the aggregate once it is built (having.go's deferred placeholders). A correlated one may
// read the query's group keys: it is bound in general mode and flattened (flatten.go) over
// the domain of those keys, taken from the aggregate's output, and left joined onto it.
// Like DuckDB, a column that is not a group key is an error.

// addGeneral binds a correlated scalar subquery of a grouped query in general mode and
// returns its placeholder.
func (d *deferredSubqueries) addGeneral(eb *exprBinder, q ast.Statement) (plan.Expr, error) {
	if d.agg == nil {
		return nil, dberr.NotSupported("correlated subqueries in the " + eb.clause)
	}
	sq, err := eb.bindGeneralOne(q)
	if err != nil {
		return nil, err
	}
	d.subs = append(d.subs, sq)
	return &placeholder{idx: len(d.subs) - 1, col: fieldRef(sq.plan.Schema(), 0)}, nil
}

// bindGeneralOne binds q, a one-column subquery, in general mode under eb's scope.
func (eb *exprBinder) bindGeneralOne(q ast.Statement) (*subquery, error) {
	child := eb.b.child()
	child.outer = eb.scope
	child.corr = &correlation{general: true}
	n, err := child.bindStatement(q)
	if err != nil {
		return nil, err
	}
	if width(n) != 1 {
		return nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", width(n))
	}
	return &subquery{plan: n, ncols: 1, general: true, outer: eb.scope}, nil
}

// deferredAny binds x fn ANY (q) where subqueries join onto the aggregate once it is
// built; x is over the aggregate's output. Its placeholder becomes the CASE over two marks
// of anyMarks (general.go).
func (eb *exprBinder) deferredAny(q ast.Statement, x plan.Expr, fn string) (plan.Expr, error) {
	if eb.deferred.agg == nil {
		return nil, dberr.NotSupported("ANY, ALL and IN subqueries in the " + eb.clause)
	}
	sq, err := eb.bindGeneralOne(q)
	if err != nil {
		return nil, err
	}
	sq.anyX, sq.anyFn = x, fn
	d := eb.deferred
	d.subs = append(d.subs, sq)
	mark := &plan.ColumnRef{Name: "any", DataType: arrow.FixedWidthTypes.Boolean, Null: true}
	return &placeholder{idx: len(d.subs) - 1, col: mark}, nil
}

// groupKey maps an outer column a correlated subquery reads to the aggregate's output
// column of the group key that is that column.
func (d *deferredSubqueries) groupKey(col *plan.ColumnRef) (plan.Expr, error) {
	for i, g := range d.agg.groups {
		if c, ok := g.(*plan.ColumnRef); ok && c.Index == col.Index {
			return &plan.ColumnRef{Index: i, Name: d.agg.names[i], DataType: g.Type(), Null: g.Nullable()}, nil
		}
	}
	return nil, dberr.New(dberr.Binder, "column %q must appear in the GROUP BY clause or must be part of an aggregate function", col.Name)
}

// attach joins every deferred subquery's value onto node (the aggregate) and returns the
// join and the value columns: an uncorrelated subquery's single value is cross joined, a
// correlated one is flattened over the group keys it reads and left joined.
func (d *deferredSubqueries) attach(node plan.Node) (plan.Node, []plan.Expr, error) {
	cols := make([]plan.Expr, len(d.subs))
	for i, sq := range d.subs {
		var err error
		fs := &flatSubquery{plan: sq.plan, ncols: 1}
		if sq.general {
			if fs, err = flattenOnto(sq.plan, sq.outer, node, d.groupKey); err != nil {
				return nil, nil, err
			}
		}
		if sq.anyX != nil {
			if cols[i], err = fs.anyMarks(&node, sq.anyX, sq.anyFn); err != nil {
				return nil, nil, err
			}
			continue
		}
		if node, err = fs.joinScalar(node); err != nil {
			return nil, nil, err
		}
		cols[i] = fieldRef(node.Schema(), width(node)-1)
	}
	return node, cols, nil
}

// attachSubqueries joins the deferred scalar subqueries of a grouped query onto its
// aggregate and points HAVING, the select list and the hidden ORDER BY expressions at
// their values.
func (st *selectState) attachSubqueries(node plan.Node, having *plan.Expr) (plan.Node, error) {
	d := st.havingSubs
	if d == nil || len(d.subs) == 0 {
		return node, nil
	}
	node, cols, err := d.attach(node)
	if err != nil {
		return nil, err
	}
	if *having != nil {
		*having = replacePlaceholders(*having, cols)
	}
	for i, e := range st.exprs {
		st.exprs[i] = replacePlaceholders(e, cols)
	}
	for i, e := range st.hidden {
		st.hidden[i] = replacePlaceholders(e, cols)
	}
	return node, nil
}

// deferredExists binds EXISTS (q) where subqueries join onto the aggregate once it is
// built (a grouped query's select list, HAVING or ORDER BY): it is the deferred scalar
// subquery (SELECT count(*) > 0 FROM (q)).
func (eb *exprBinder) deferredExists(q ast.Statement, pos ast.Pos) (plan.Expr, error) {
	count := &ast.FuncCall{Pos: pos, Name: "count", Star: true}
	zero := &ast.Literal{Pos: pos, Kind: ast.LitInt, Text: "0"}
	s := &ast.Select{
		Pos:   pos,
		Items: []ast.SelectItem{{Pos: pos, Expr: &ast.Binary{Pos: pos, Op: ">", L: count, R: zero}}},
		From:  &ast.SubqueryRef{Pos: pos, Query: q, Alias: "__exists"},
	}
	return eb.deferred.add(eb, s)
}
