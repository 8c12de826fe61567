package bind

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// deferredSubqueries collects the scalar subqueries of a grouped query's select list,
// HAVING and ORDER BY. The aggregate they join onto does not exist while those are bound
// (they all add aggregates to it), so each subquery's value is bound as a placeholder that
// attach (grouped_subquery.go) later points at the subquery's column of a join onto the
// aggregate.
type deferredSubqueries struct {
	subs []*subquery
	agg  *aggContext // the grouping correlated subqueries read (grouped_subquery.go)
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

// add binds q and returns its placeholder; a correlated q is bound for flattening
// (grouped_subquery.go).
func (d *deferredSubqueries) add(eb *exprBinder, q ast.Statement) (plan.Expr, error) {
	sq, err := eb.b.bindSubquery(q, eb.scope)
	if needsGeneral(err) || err == nil && (len(sq.outerKeys) > 0 || len(sq.corr.residual) > 0) {
		return d.addGeneral(eb, q) // grouped_subquery.go
	}
	if err != nil {
		return nil, err
	}
	if sq.ncols != 1 {
		return nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", sq.ncols)
	}
	d.subs = append(d.subs, sq)
	return &placeholder{idx: len(d.subs) - 1, col: fieldRef(sq.plan.Schema(), 0)}, nil
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
