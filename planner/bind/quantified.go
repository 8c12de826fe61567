package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// negatedCmp maps a comparison to its negation under three-valued logic:
// NOT (a op b) is a negatedCmp[op] b, NULL staying NULL.
var negatedCmp = map[string]string{"=": "<>", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

// quantifiedOp splits the parser's "op ANY" / "op ALL" operator; ok is false for any other.
func quantifiedOp(op string) (cmp string, all bool, ok bool) {
	if c, found := strings.CutSuffix(op, " ANY"); found {
		return c, false, true
	}
	if c, found := strings.CutSuffix(op, " ALL"); found {
		return c, true, true
	}
	return "", false, false
}

// bindQuantified binds x op ANY (q) and x op ALL (q). ALL is NOT (x negop ANY (q)). ANY is
// planned as two mark joins onto the input, each correlated like any subquery (its
// correlations, equalities or not, stay filters):
//
//	m1: some row s of q has x op s TRUE
//	m2: some row s of q has x op s NULL
//
// and the value is CASE WHEN m1 THEN true WHEN m2 THEN NULL ELSE false: TRUE on a match,
// NULL when there is no match but a comparison was NULL (x NULL, or a NULL in q), false
// otherwise (an empty q included). Both marks are coalesced to false, so the result does
// not depend on how the join treats NULL keys or conditions.
func (eb *exprBinder) bindQuantified(e *ast.Binary, cmp string, all bool) (plan.Expr, error) {
	q, ok := e.R.(*ast.Subquery)
	if !ok {
		return nil, dberr.NotSupported("ANY/ALL over anything but a subquery").At(e.Pos.Line, e.Pos.Column)
	}
	name, ok := binaryFuncs[cmp]
	if !ok {
		return nil, dberr.NotSupported("quantified operator " + cmp)
	}
	if all {
		name = binaryFuncs[negatedCmp[cmp]]
	}
	if oneRowAggregate(q.Query) {
		// Exactly one row, even over no input: x op ANY/ALL (q) is x op (q).
		x, err := eb.bind(e.L)
		if err != nil {
			return nil, err
		}
		v, err := eb.bindScalarSubquery(q)
		if err != nil {
			return nil, err
		}
		return functions.NewCall(binaryFuncs[cmp], []plan.Expr{x, v})
	}
	x, err := eb.bind(e.L)
	if err != nil {
		return nil, err
	}
	var before plan.Node
	if eb.input != nil {
		before = *eb.input
	}
	anyVal, err := eb.quantifiedAny(q.Query, x, name, nil)
	if needsGeneral(err) && (eb.input != nil || eb.deferred != nil) {
		if eb.input != nil {
			*eb.input = before
		}
		anyVal, err = eb.flatAny(q.Query, x, name) // general.go
	}
	if err != nil || !all {
		return anyVal, err
	}
	return functions.NewCall("not", []plan.Expr{anyVal})
}

// quantifiedAny plans x fn ANY (q) (see bindQuantified); first, when set, is q already
// bound, used for the first mark join.
func (eb *exprBinder) quantifiedAny(q ast.Statement, x plan.Expr, fn string, first *subquery) (plan.Expr, error) {
	m1, err := eb.quantifiedMark(q, x, fn, false, first)
	if err != nil {
		return nil, err
	}
	m2, err := eb.quantifiedMark(q, x, fn, true, nil)
	if err != nil {
		return nil, err
	}
	trueLit := &plan.Literal{Value: scalar.NewBooleanScalar(true)}
	falseLit := &plan.Literal{Value: scalar.NewBooleanScalar(false)}
	return functions.NewCall("case", []plan.Expr{m1, trueLit, m2, nullBool(), falseLit})
}

// quantifiedMark joins q onto the input as a mark join whose condition is the correlation
// AND x fn s (isNull false) or AND (x fn s) IS NULL (isNull true); it returns
// coalesce(mark, false). sq is q bound, or nil to bind it here.
func (eb *exprBinder) quantifiedMark(q ast.Statement, x plan.Expr, fn string, isNull bool, sq *subquery) (plan.Expr, error) {
	input, err := eb.requireInput()
	if err != nil {
		return nil, err
	}
	if sq == nil {
		if sq, err = eb.b.bindSubquery(q, eb.scope); err != nil {
			return nil, err
		}
	}
	if err := sq.requireNoDomain("ANY/ALL subqueries"); err != nil {
		return nil, err
	}
	if sq.ncols != 1 {
		return nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", sq.ncols)
	}
	nleft := (*input).Schema().NumFields()
	s := fieldRef(sq.plan.Schema(), 0)
	s.Index += nleft
	c, err := functions.NewCall(fn, []plan.Expr{x, s})
	if err != nil {
		return nil, err
	}
	var cond plan.Expr = c
	if isNull {
		if cond, err = functions.NewCall("is_null", []plan.Expr{c}); err != nil {
			return nil, err
		}
	}
	lk, rk := sq.outerKeys, sq.rightKeys()
	var conds []plan.Expr
	if fn == "equal" && !isNull {
		// An equality is a key: a NULL key makes the mark NULL, which coalesces to false
		// exactly as a NULL condition would.
		lk = append(append([]plan.Expr{}, lk...), c.Args[0])
		rk = append(append([]plan.Expr{}, rk...), unshift(c.Args[1], nleft))
	} else {
		conds = append(conds, cond)
	}
	if r := sq.joinCond(nleft); r != nil {
		conds = append(conds, r)
	}
	j := plan.NewJoin(*input, sq.plan, plan.MarkJoin, lk, rk, plan.Conjoin(conds))
	*input = j
	mark := fieldRef(j.Schema(), j.Schema().NumFields()-1)
	return functions.NewCall("coalesce", []plan.Expr{mark, &plan.Literal{Value: scalar.NewBooleanScalar(false)}})
}

// unshift moves the column references of e, over a join's left columns (nleft of them)
// then its right ones, onto the right input alone.
func unshift(e plan.Expr, nleft int) plan.Expr {
	return plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
		x := *c
		x.Index -= nleft
		return &x
	})
}
