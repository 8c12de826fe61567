package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// deferredSubqueries collects the uncorrelated scalar subqueries of a HAVING clause. The
// aggregate they join onto does not exist while HAVING is bound (the select list, HAVING and
// ORDER BY all add aggregates to it), so each subquery's value is bound as a placeholder
// that attach later points at the subquery's column of a cross join onto the aggregate.
type deferredSubqueries struct {
	subs []*subquery
}

// placeholder is the value of deferred subquery idx inside a bound expression.
type placeholder struct {
	idx int
	col *plan.ColumnRef // the subquery's value column (for its type and name)
}

// Type implements plan.Expr.
func (p *placeholder) Type() arrow.DataType { return p.col.DataType }

// Nullable implements plan.Expr: a scalar subquery over no rows is NULL.
func (p *placeholder) Nullable() bool { return true }

func (p *placeholder) String() string { return "subquery." + p.col.String() }

// add binds q (uncorrelated only) and returns its placeholder.
func (d *deferredSubqueries) add(eb *exprBinder, q ast.Statement) (plan.Expr, error) {
	sq, err := eb.b.bindSubquery(q, eb.scope)
	if err != nil {
		return nil, err
	}
	if len(sq.outerKeys) > 0 || len(sq.corr.residual) > 0 {
		return nil, dberr.NotSupported("correlated subqueries in the " + eb.clause)
	}
	if sq.ncols != 1 {
		return nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", sq.ncols)
	}
	d.subs = append(d.subs, sq)
	return &placeholder{idx: len(d.subs) - 1, col: fieldRef(sq.plan.Schema(), 0)}, nil
}

// attach cross joins every subquery's single value onto node and returns the join and e
// with the placeholders replaced by the joined columns.
func (d *deferredSubqueries) attach(node plan.Node, e plan.Expr) (plan.Node, plan.Expr) {
	if d == nil || len(d.subs) == 0 {
		return node, e
	}
	cols := make([]plan.Expr, len(d.subs))
	for i, sq := range d.subs {
		val := fieldRef(sq.plan.Schema(), 0)
		agg := plan.NewAggregate(sq.plan, nil, nil, []plan.AggCall{{
			Func: "single_value", Args: []plan.Expr{val}, DataType: val.DataType, Null: true, Name: val.Name,
		}})
		j := plan.NewJoin(node, agg, plan.CrossJoin, nil, nil, nil)
		node = j
		cols[i] = fieldRef(j.Schema(), j.Schema().NumFields()-1)
	}
	return node, replacePlaceholders(e, cols)
}

func replacePlaceholders(e plan.Expr, cols []plan.Expr) plan.Expr {
	switch x := e.(type) {
	case *placeholder:
		return cols[x.idx]
	case *plan.Call:
		out := *x
		out.Args = make([]plan.Expr, len(x.Args))
		for i, a := range x.Args {
			out.Args[i] = replacePlaceholders(a, cols)
		}
		return &out
	case *plan.Cast:
		out := *x
		out.Input = replacePlaceholders(x.Input, cols)
		return &out
	}
	return e
}
