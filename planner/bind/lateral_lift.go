package bind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// lift prepares a lateral subquery whose select list references outer columns
// (`FROM t, LATERAL (SELECT t.x * 2 AS d)`): when its plan is a projection over an input
// without outer references (no aggregate, window, DISTINCT, ORDER BY or LIMIT above it),
// the projection is taken off and evaluated above the join, where the outer columns are
// at hand. It reports whether that was possible.
func (sq *subquery) lift() bool {
	p, ok := sq.plan.(*plan.Project)
	if !ok || sq.corr.domain != nil || nodeHasOuter(p.Input) {
		return false
	}
	for _, e := range p.Exprs[sq.ncols:] {
		if hasOuter(e) {
			return false
		}
	}
	sq.lifted = p
	return true
}

// liftedLateralJoin joins the lifted subquery's input onto left (correlation keys and
// conditions as usual) and evaluates its select list above the join. The ON condition
// filters the result of an inner join; a LEFT join only takes ON true.
func (b *binder) liftedLateralJoin(j *ast.Join, typ plan.JoinType, left plan.Node, ls, rs *scope, sq *subquery) (plan.Node, *scope, error) {
	p := sq.lifted
	nleft := left.Schema().NumFields()
	shift := func(e plan.Expr) plan.Expr {
		e = plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
			x := *c
			x.Index += nleft
			return &x
		})
		return unwrapOuter(e)
	}
	rk := p.Exprs[sq.ncols : sq.ncols+len(sq.outerKeys)]
	var conds []plan.Expr
	for _, r := range sq.corr.residual {
		conds = append(conds, shift(r))
	}
	right, marker := p.Input, plan.Expr(nil)
	if typ == plan.LeftJoin {
		// The select list may be non-NULL over a NULL-extended row (coalesce(y, 0)): a
		// marker column tells the unmatched rows apart, which get NULL instead.
		right, marker = withMarker(p.Input, nleft)
	}
	jn := plan.NewJoin(left, right, typ, sq.outerKeys, rk, plan.Conjoin(conds))
	exprs := columnRefs(jn.Schema(), nleft)
	names := make([]string, 0, nleft+sq.ncols)
	for i := range nleft {
		names = append(names, jn.Schema().Field(i).Name)
	}
	for i, e := range p.Exprs[:sq.ncols] {
		e = shift(e)
		if marker != nil {
			var err error
			if e, err = nullUnless(marker, e); err != nil {
				return nil, nil, err
			}
		}
		exprs = append(exprs, e)
		names = append(names, p.Names[i])
	}
	proj := plan.NewProject(jn, exprs, names)
	both := &scope{cols: append(append([]scopeCol{}, ls.cols...), shiftCols(rs.cols, nleft)...)}
	sc := refresh(both, proj)
	if j.On == nil {
		return proj, sc, nil
	}
	eb := &exprBinder{b: b, scope: sc, clause: "JOIN condition"}
	on, err := eb.bind(j.On)
	if err != nil {
		return nil, nil, err
	}
	if on, err = asPredicate(on, "JOIN", j.On.Position()); err != nil {
		return nil, nil, err
	}
	if isTrueLiteral(on) {
		return proj, sc, nil
	}
	if typ != plan.InnerJoin {
		return nil, nil, dberr.NotSupported("LEFT JOIN LATERAL with a select list over outer columns and an ON condition other than true").At(j.Pos.Line, j.Pos.Column)
	}
	return &plan.Filter{Input: proj, Cond: on}, sc, nil
}

func isTrueLiteral(e plan.Expr) bool {
	lit, ok := e.(*plan.Literal)
	if !ok || lit.Value.DataType().ID() != arrow.BOOL || !lit.Value.IsValid() {
		return false
	}
	bv, ok := lit.Value.(*scalar.Boolean)
	return ok && bv.Value
}

// withMarker appends a TRUE column to n's output and returns it, with a reference to the
// column as it appears after nleft left columns of a join.
func withMarker(n plan.Node, nleft int) (plan.Node, plan.Expr) {
	width := n.Schema().NumFields()
	names := make([]string, width, width+1)
	for i, f := range n.Schema().Fields() {
		names[i] = f.Name
	}
	exprs := append(columnRefs(n.Schema(), width), &plan.Literal{Value: scalar.NewBooleanScalar(true)})
	out := plan.NewProject(n, exprs, append(names, "__inner"))
	return out, &plan.ColumnRef{Index: nleft + width, Name: "__inner", DataType: arrow.FixedWidthTypes.Boolean, Null: true}
}

// nullUnless is CASE WHEN marker IS NULL THEN NULL ELSE e END.
func nullUnless(marker, e plan.Expr) (plan.Expr, error) {
	isNull, err := functions.NewCall("is_null", []plan.Expr{marker})
	if err != nil {
		return nil, err
	}
	return functions.NewCall("case", []plan.Expr{isNull, &plan.Literal{Value: scalar.MakeNullScalar(e.Type())}, e})
}
