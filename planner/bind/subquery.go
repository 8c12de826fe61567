package bind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// correlation collects the correlations of a correlated subquery's WHERE clause: the
// equalities inner[i] (over the subquery's FROM) = outer[i] (over the enclosing query's
// input), which become join keys, and any other conjunct over inner and outer columns
// (residual), which becomes the join's residual condition. The inner columns a residual
// reads are output by the subquery after the keys (extra).
type correlation struct {
	inner    []plan.Expr
	outer    []plan.Expr
	residual []plan.Expr
	extra    []*plan.ColumnRef
	// aggregated is set when the subquery aggregates (per correlation key).
	aggregated bool
	// domain is set when the aggregate is decorrelated over a domain (domain.go).
	domain *domain
	// lateral marks a lateral subquery: its aggregates always go over a domain.
	lateral bool
	// scalar marks a scalar subquery: an aggregate whose value over an empty group is not
	// NULL goes over a domain (empty_group.go).
	scalar bool
	// general marks a subquery bound for flattening (flatten.go): outer references stay in
	// its expressions instead of being collected here.
	general bool
	// deep is set when the subquery references a query further out than the enclosing
	// one; only flattening handles that.
	deep bool
}

// add records cond, which references outer columns.
func (c *correlation) add(cond plan.Expr) error {
	call, ok := cond.(*plan.Call)
	if ok && call.Func == "equal" && len(call.Args) == 2 {
		l, r := call.Args[0], call.Args[1]
		if onlyOuter(r) && !hasOuter(l) && hasColumns(l) {
			c.inner, c.outer = append(c.inner, l), append(c.outer, unwrapOuter(r))
			return nil
		}
		if onlyOuter(l) && !hasOuter(r) && hasColumns(r) {
			c.inner, c.outer = append(c.inner, r), append(c.outer, unwrapOuter(l))
			return nil
		}
	}
	c.residual = append(c.residual, cond)
	plan.Columns(cond, func(col *plan.ColumnRef) {
		for _, e := range c.extra {
			if e.Index == col.Index {
				return
			}
		}
		c.extra = append(c.extra, col)
	})
	return nil
}

// outputs are the columns a correlated subquery without aggregates outputs after its own:
// the key expressions, then the inner columns of the residual conditions.
func (c *correlation) outputs() []plan.Expr {
	out := append([]plan.Expr{}, c.inner...)
	for _, e := range c.extra {
		out = append(out, e)
	}
	return out
}

// walk calls f for e and every expression below it.
func walk(e plan.Expr, f func(plan.Expr)) {
	f(e)
	switch e := e.(type) {
	case *plan.Call:
		for _, a := range e.Args {
			walk(a, f)
		}
	case *plan.Cast:
		walk(e.Input, f)
	}
}

func hasOuter(e plan.Expr) bool {
	found := false
	walk(e, func(x plan.Expr) { _, ok := x.(*outerRef); found = found || ok })
	return found
}

func hasColumns(e plan.Expr) bool {
	found := false
	plan.Columns(e, func(*plan.ColumnRef) { found = true })
	return found
}

// onlyOuter reports whether e references outer columns and no inner ones.
func onlyOuter(e plan.Expr) bool { return hasOuter(e) && !hasColumns(e) }

// unwrapOuter replaces outer references by plain column references over the outer input.
func unwrapOuter(e plan.Expr) plan.Expr {
	switch x := e.(type) {
	case *outerRef:
		return x.col
	case *plan.Call:
		out := *x
		out.Args = make([]plan.Expr, len(x.Args))
		for i, a := range x.Args {
			out.Args[i] = unwrapOuter(a)
		}
		return &out
	case *plan.Cast:
		out := *x
		out.Input = unwrapOuter(x.Input)
		return &out
	}
	return e
}

// subquery is a bound subquery: plan outputs the query's columns (ncols of them) followed
// by one column per correlation key, then the inner columns of the residual correlation
// conditions; outerKeys are the keys' outer-side expressions.
type subquery struct {
	plan      plan.Node
	ncols     int
	outerKeys []plan.Expr
	corr      *correlation
	// lifted is the top projection of a lateral subquery whose select list references
	// outer columns: it is evaluated above the join (lateral_lift.go); plan is its input.
	lifted *plan.Project
	// general marks a lateral subquery bound in general mode, flattened when joined
	// (lateral_flat.go): plan is the bound subquery with its outer references.
	general bool
	// outer is the scope a deferred general-mode subquery's outer references resolve into
	// (grouped_subquery.go); anyX and anyFn, when set, make it x fn ANY (q).
	outer *scope
	anyX  plan.Expr
	anyFn string
}

// joinCond is the residual correlation as a join condition over the outer input (nleft
// columns) followed by the subquery's columns; nil without residual conditions.
func (sq *subquery) joinCond(nleft int) plan.Expr {
	if len(sq.corr.residual) == 0 {
		return nil
	}
	base := nleft + sq.ncols + len(sq.outerKeys)
	var out []plan.Expr
	for _, r := range sq.corr.residual {
		r = plan.RewriteColumns(r, func(c *plan.ColumnRef) plan.Expr {
			for i, e := range sq.corr.extra {
				if e.Index == c.Index {
					x := *c
					x.Index = base + i
					return &x
				}
			}
			return c
		})
		out = append(out, unwrapOuter(r))
	}
	return plan.Conjoin(out)
}

// bindSubquery binds q as a subquery of the query whose input scope is outer.
func (b *binder) bindSubquery(q ast.Statement, outer *scope) (*subquery, error) {
	return b.bindSubqueryCorr(q, outer, &correlation{})
}

// bindSubqueryCorr binds q as a subquery of the query whose input scope is outer,
// collecting its correlations into c.
func (b *binder) bindSubqueryCorr(q ast.Statement, outer *scope, c *correlation) (*subquery, error) {
	child := b.child()
	child.outer = outer
	child.corr = c
	n, err := child.bindStatement(q)
	if err != nil {
		return nil, err
	}
	if c.deep {
		return nil, dberr.NotSupported("correlation more than one level up outside the general decorrelation")
	}
	sq := &subquery{plan: n, ncols: n.Schema().NumFields() - len(c.inner) - len(c.extra), outerKeys: c.outer, corr: c}
	if len(c.residual) > 0 && c.aggregated {
		return nil, dberr.NotSupported("correlated subqueries with aggregates whose correlation is not an equality between an inner and an outer expression")
	}
	if sq.ncols < 1 {
		return nil, dberr.New(dberr.Internal, "subquery without columns")
	}
	if nodeHasOuter(n) {
		return nil, dberr.NotSupported("correlated column references outside the subquery's WHERE equalities")
	}
	return sq, nil
}

// rightKeys references the correlation columns of the subquery's plan.
func (sq *subquery) rightKeys() []plan.Expr {
	var out []plan.Expr
	for i := sq.ncols; i < sq.ncols+len(sq.outerKeys); i++ {
		out = append(out, fieldRef(sq.plan.Schema(), i))
	}
	return out
}

func fieldRef(s *arrow.Schema, i int) *plan.ColumnRef {
	f := s.Field(i)
	return &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
}

// checkCorrelated rejects the clauses the specialised decorrelation does not handle; the
// subquery is then bound again for the general one (flatten.go).
func (st *selectState) checkCorrelated() error {
	if st.in.corr == nil || len(st.in.corr.inner)+len(st.in.corr.residual) == 0 {
		return nil
	}
	s := st.s
	if s.Distinct || len(s.OrderBy) > 0 || s.Limit != nil || s.Offset != nil || s.Having != nil || len(s.GroupBy) > 0 {
		return dberr.NotSupported("correlated subqueries with GROUP BY, HAVING, DISTINCT, ORDER BY or LIMIT").At(s.Pos.Line, s.Pos.Column)
	}
	return nil
}

// semiJoin plans a WHERE conjunct [NOT] EXISTS (q) or x IN (q) as a semi or anti join onto
// node; ok is false for any other conjunct.
func (b *binder) semiJoin(node plan.Node, sc *scope, c ast.Expr) (plan.Node, bool, error) {
	typ := plan.SemiJoin
	if u, isNot := c.(*ast.Unary); isNot && u.Op == "NOT" {
		if _, isExists := u.X.(*ast.Exists); !isExists {
			return node, false, nil
		}
		c, typ = u.X, plan.AntiJoin
	}
	var q ast.Statement
	var x ast.Expr
	switch e := c.(type) {
	case *ast.Exists:
		q = e.Query
	case *ast.InSubquery:
		if e.Not {
			return node, false, nil // NOT IN needs NULL semantics: a mark join
		}
		q, x = e.Query, e.X
	default:
		return node, false, nil
	}
	if oneRowAggregate(q) {
		return node, false, nil // bound as an expression: bindMarkSubquery
	}
	sq, err := b.bindSubquery(q, sc)
	if err == nil {
		err = sq.requireNoDomain("EXISTS and IN subqueries")
	}
	if needsGeneral(err) {
		return node, false, nil // bound as an expression: flatExists, flatAny (general.go)
	}
	if err != nil {
		return nil, false, err
	}
	lk, rk := sq.outerKeys, sq.rightKeys()
	if x != nil {
		eb := &exprBinder{b: b, scope: sc, clause: "WHERE clause"}
		l, r, err := eb.inKey(x, sq)
		if err != nil {
			return nil, false, err
		}
		lk, rk = append([]plan.Expr{l}, lk...), append([]plan.Expr{r}, rk...)
	}
	return plan.NewJoin(node, sq.plan, typ, lk, rk, sq.joinCond(node.Schema().NumFields())), true, nil
}

// inKey binds x of x IN (q) and unifies it with the subquery's single column.
func (eb *exprBinder) inKey(x ast.Expr, sq *subquery) (plan.Expr, plan.Expr, error) {
	if sq.ncols != 1 {
		return nil, nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", sq.ncols)
	}
	l, err := eb.bind(x)
	if err != nil {
		return nil, nil, err
	}
	eq, err := functions.NewCall("equal", []plan.Expr{l, fieldRef(sq.plan.Schema(), 0)})
	if err != nil {
		return nil, nil, err
	}
	return eq.Args[0], eq.Args[1], nil
}

// requireInput returns the node subqueries join onto, or an error where they cannot go.
func (eb *exprBinder) requireInput() (*plan.Node, error) {
	if eb.input == nil {
		return nil, dberr.NotSupported("subqueries in the " + eb.clause + " of this query")
	}
	return eb.input, nil
}

// bindMarkSubquery plans EXISTS (q) (x == nil) or x IN (q) as a mark join onto the input
// and returns the mark column: EXISTS is coalesce(mark, false).
func (eb *exprBinder) bindMarkSubquery(q ast.Statement, x ast.Expr, pos ast.Pos) (plan.Expr, error) {
	if eb.input == nil && eb.deferred != nil {
		return eb.flatMark(q, x, pos) // general.go, grouped_subquery.go
	}
	input, err := eb.requireInput()
	if err != nil {
		return nil, err
	}
	if oneRowAggregate(q) {
		return eb.oneRowMark(q, x, pos)
	}
	sq, err := eb.b.bindSubquery(q, eb.scope)
	if err == nil {
		err = sq.requireNoDomain("EXISTS and IN subqueries")
	}
	if needsGeneral(err) {
		return eb.flatMark(q, x, pos)
	}
	if err != nil {
		return nil, err
	}
	if x != nil && (len(sq.outerKeys) > 0 || len(sq.corr.residual) > 0) {
		// A correlated x IN (q) is x = ANY (q): a NULL correlation key must mean no rows
		// (FALSE), not the NULL a mark join's NULL key gives (quantified.go).
		l, err := eb.bind(x)
		if err != nil {
			return nil, err
		}
		return eb.quantifiedAny(q, l, "equal", sq)
	}
	lk, rk := sq.outerKeys, sq.rightKeys()
	if x != nil {
		l, r, err := eb.inKey(x, sq)
		if err != nil {
			return nil, err
		}
		lk, rk = append([]plan.Expr{l}, lk...), append([]plan.Expr{r}, rk...)
	}
	j := plan.NewJoin(*input, sq.plan, plan.MarkJoin, lk, rk, sq.joinCond((*input).Schema().NumFields()))
	*input = j
	mark := fieldRef(j.Schema(), j.Schema().NumFields()-1)
	if x == nil {
		return functions.NewCall("coalesce", []plan.Expr{mark, &plan.Literal{Value: scalar.NewBooleanScalar(false)}})
	}
	return mark, nil
}

func (eb *exprBinder) bindInSubquery(e *ast.InSubquery) (plan.Expr, error) {
	mark, err := eb.bindMarkSubquery(e.Query, e.X, e.Pos)
	if err != nil || !e.Not {
		return mark, err
	}
	return functions.NewCall("not", []plan.Expr{mark})
}

// bindScalarSubquery plans (q): its rows go through single_value (grouped by the
// correlation keys), which errors on more than one row, and the result is cross joined
// (uncorrelated) or left joined on the keys (correlated) onto the input.
func (eb *exprBinder) bindScalarSubquery(e *ast.Subquery) (plan.Expr, error) {
	if eb.input == nil && eb.deferred != nil {
		return eb.deferred.add(eb, e.Query)
	}
	input, err := eb.requireInput()
	if err != nil {
		return nil, err
	}
	sq, err := eb.b.bindSubqueryCorr(e.Query, eb.scope, &correlation{scalar: true})
	if needsGeneral(err) {
		return eb.flatScalar(e.Query) // general.go
	}
	if err != nil {
		return nil, err
	}
	sq.attachDomain(*input)
	if sq.ncols != 1 {
		return nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", sq.ncols)
	}
	if len(sq.corr.residual) > 0 {
		return eb.scalarOverDomain(sq, input) // scalar_domain.go
	}
	rk := sq.rightKeys()
	val := fieldRef(sq.plan.Schema(), 0)
	names := make([]string, len(rk))
	for i, k := range rk {
		names[i] = k.(*plan.ColumnRef).Name
	}
	agg := plan.NewAggregate(sq.plan, rk, names, []plan.AggCall{{
		Func: "single_value", Args: []plan.Expr{val}, DataType: val.DataType, Null: true, Name: val.Name,
	}})
	keys := columnRefs(agg.Schema(), len(rk))
	var j *plan.Join
	if len(rk) == 0 {
		j = plan.NewJoin(*input, agg, plan.CrossJoin, nil, nil, nil)
	} else if sq.corr.domain != nil {
		lk, rk, cond, err := nullSafeKeys(sq.outerKeys, keys, (*input).Schema().NumFields())
		if err != nil {
			return nil, err
		}
		j = plan.NewJoin(*input, agg, plan.LeftJoin, lk, rk, cond)
	} else {
		j = plan.NewJoin(*input, agg, plan.LeftJoin, sq.outerKeys, keys, nil)
	}
	*input = j
	out := plan.Expr(fieldRef(j.Schema(), j.Schema().NumFields()-1))
	if len(rk) > 0 && isCountQuery(e.Query) {
		// A correlated count over no rows is 0, not the NULL the left join produces.
		return functions.NewCall("coalesce", []plan.Expr{out, &plan.Literal{Value: scalar.NewInt64Scalar(0)}})
	}
	return out, nil
}

// isCountQuery reports whether q is SELECT count(...) FROM ... (one ungrouped count).
func isCountQuery(q ast.Statement) bool {
	s, ok := q.(*ast.Select)
	if !ok || len(s.Items) != 1 || len(s.GroupBy) > 0 {
		return false
	}
	f, ok := s.Items[0].Expr.(*ast.FuncCall)
	return ok && f.Name == "count"
}

// nodeHasOuter reports whether any expression of the plan still holds an outer reference.
func nodeHasOuter(n plan.Node) bool {
	found := false
	forEachExpr(n, func(e plan.Expr) { found = found || hasOuter(e) })
	return found
}
