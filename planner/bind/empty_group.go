package bind

import (
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// An aggregating scalar subquery correlated only by equalities is grouped by its inner key
// expressions and left joined onto the outer query (the fast path): an outer row whose
// key matches nothing gets NULL. That is right only when the subquery's value over no
// rows is NULL, as for `(SELECT sum(x) ...)` or TPC-H's `(SELECT 0.2 * avg(q) ...)`; a
// bare count is patched to 0 after the join (bindScalarSubquery). Any other value over an
// empty group (`count(*) + 1`, `coalesce(sum(x), -1)`, `CASE WHEN count(*) = 0 ...`) is
// decorrelated over a domain instead (domain.go), where an unmatched outer value
// aggregates an empty set and the select list is evaluated over it.

// nullOnEmptyAggregates are the aggregates whose value over no rows is NULL.
var nullOnEmptyAggregates = map[string]bool{
	"sum": true, "min": true, "max": true, "avg": true,
	"stddev_samp": true, "stddev_pop": true, "var_samp": true, "var_pop": true,
	"bool_and": true, "bool_or": true, "string_agg": true, "list": true,
	"first": true, "last": true, "any_value": true,
}

// strictBinaryOps are the infix operators whose result is NULL when either operand is.
var strictBinaryOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "//": true, "%": true,
	"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
}

// needsEmptyGroup reports whether st is the select of an aggregating scalar subquery
// correlated by equalities whose value over an empty group may not be NULL, so that it
// must be decorrelated over a domain rather than grouped by its keys.
func (st *selectState) needsEmptyGroup() bool {
	c := st.in.corr
	if c == nil || !c.scalar || len(c.inner) == 0 || len(c.residual) > 0 {
		return false
	}
	if len(st.items) != 1 {
		return true // an error later (one column expected); the domain path is safe
	}
	e := st.items[0].expr
	return !isBareCount(e) && !nullOnEmpty(e)
}

// isBareCount reports whether e is a plain count(...) call, whose value over no rows (0)
// bindScalarSubquery restores after the left join.
func isBareCount(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	return ok && f.Over == nil && f.Name == "count"
}

// nullOnEmpty reports whether e is certainly NULL when evaluated over an empty group: an
// aggregate that is NULL over no rows, or a NULL-strict operator (arithmetic, comparison,
// negation, cast) over such an expression.
func nullOnEmpty(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.FuncCall:
		return x.Over == nil && nullOnEmptyAggregates[aggName(x.Name)]
	case *ast.Binary:
		return strictBinaryOps[x.Op] && (nullOnEmpty(x.L) || nullOnEmpty(x.R))
	case *ast.Unary:
		return (x.Op == "-" || x.Op == "+") && nullOnEmpty(x.X)
	case *ast.Cast:
		return nullOnEmpty(x.X)
	}
	return false
}

// oneRowAggregate reports whether q is an aggregate without GROUP BY, HAVING, QUALIFY,
// LIMIT or OFFSET: it returns exactly one row (per outer row when correlated), even over
// no input rows. EXISTS (q) is then TRUE and x IN (q) is x = (q); planning them as semi or
// mark joins on the correlation keys would lose the row of an unmatched key.
func oneRowAggregate(q ast.Statement) bool {
	s, ok := q.(*ast.Select)
	if !ok || len(s.GroupBy) > 0 || s.Having != nil || s.Qualify != nil || s.Limit != nil || s.Offset != nil {
		return false
	}
	for _, it := range s.Items {
		if it.Expr != nil && containsAggregate(it.Expr) {
			return true
		}
	}
	return false
}

// oneRowMark binds EXISTS (q) (x == nil) or x IN (q) for a q that returns exactly one row
// (oneRowAggregate): TRUE (q is still bound, for its errors) or x = (q).
func (eb *exprBinder) oneRowMark(q ast.Statement, x ast.Expr, pos ast.Pos) (plan.Expr, error) {
	if x == nil {
		if _, err := eb.b.bindSubquery(q, eb.scope); err != nil {
			return nil, err
		}
		return &plan.Literal{Value: scalar.NewBooleanScalar(true)}, nil
	}
	l, err := eb.bind(x)
	if err != nil {
		return nil, err
	}
	v, err := eb.bindScalarSubquery(&ast.Subquery{Pos: pos, Query: q})
	if err != nil {
		return nil, err
	}
	return functions.NewCall("equal", []plan.Expr{l, v})
}
