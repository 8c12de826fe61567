package bind

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// The general decorrelation (flatten.go) is the fallback of every subquery form: a scalar
// subquery, EXISTS, IN, op ANY/ALL and LATERAL first try the specialised plans
// (subquery.go, domain.go, quantified.go, lateral.go), which TPC-H's correlated queries
// keep; whatever those refuse is bound again in general mode and flattened here.

// needsGeneral reports whether err is a refusal of the specialised decorrelation that the
// general one may handle.
func needsGeneral(err error) bool {
	k, ok := dberr.KindOf(err)
	return ok && k == dberr.NotImplemented
}

// flatSubquery is a subquery flattened over the domain of the outer columns it reads.
type flatSubquery struct {
	plan  plan.Node   // the subquery's columns (ncols of them), then D's
	ncols int         // the subquery's own columns
	outer []plan.Expr // D's columns over the outer input (none: uncorrelated here)
}

// bindFlat binds q in general mode under the outer scope and flattens it over the domain
// of the outer input's columns it reads.
func (b *binder) bindFlat(q ast.Statement, outer *scope, input plan.Node) (*flatSubquery, error) {
	child := b.child()
	child.outer = outer
	child.corr = &correlation{general: true}
	n, err := child.bindStatement(q)
	if err != nil {
		return nil, err
	}
	return flattenOnto(n, outer, input, nil)
}

// flattenOnto flattens n, bound in general mode under outer, over input's domain (mapCol
// as in newFlattener).
func flattenOnto(n plan.Node, outer *scope, input plan.Node, mapCol func(*plan.ColumnRef) (plan.Expr, error)) (*flatSubquery, error) {
	f, err := newFlattener(outer, n, input, mapCol)
	if err != nil {
		return nil, err
	}
	fs := &flatSubquery{plan: n, ncols: width(n)}
	if len(f.cols) == 0 {
		return fs, nil
	}
	fp, err := f.flatten(n)
	if err != nil {
		return nil, err
	}
	if f.hasLocal(fp) {
		return nil, dberr.New(dberr.Internal, "flattened subquery still reads outer columns")
	}
	fs.plan, fs.outer = fp, f.over
	return fs, nil
}

// keys are NULL-safe join keys (and condition) matching the input's D columns (nleft
// columns) with D's columns of right, which start at position from.
func (fs *flatSubquery) keys(right plan.Node, from, nleft int) ([]plan.Expr, []plan.Expr, plan.Expr, error) {
	return nullSafeKeys(fs.outer, columnRefsFrom(right.Schema(), from, len(fs.outer)), nleft)
}

// joinType is typ for a correlated subquery, a cross join (kept when typ is an inner or
// left join over a one-row right side) for an uncorrelated one.
func (fs *flatSubquery) joinType(typ plan.JoinType) plan.JoinType {
	if len(fs.outer) == 0 && typ == plan.LeftJoin {
		return plan.CrossJoin
	}
	return typ
}

// flatScalar plans a scalar subquery through the general decorrelation: single_value per D
// row (an error on more than one row), left joined onto the input.
func (eb *exprBinder) flatScalar(q ast.Statement) (plan.Expr, error) {
	input, fs, err := eb.bindFlatInput(q, true)
	if err != nil {
		return nil, err
	}
	j, err := fs.joinScalar(*input)
	if err != nil {
		return nil, err
	}
	*input = j
	return fieldRef(j.Schema(), width(j)-1), nil
}

// joinScalar left joins the flattened one-column subquery's value per D row (single_value:
// an error on more than one row) onto input; the value is the join's last column.
func (fs *flatSubquery) joinScalar(input plan.Node) (plan.Node, error) {
	k := len(fs.outer)
	val := fieldRef(fs.plan.Schema(), 0)
	agg := plan.NewAggregate(fs.plan, columnRefsFrom(fs.plan.Schema(), 1, k), domainNames(k), []plan.AggCall{{
		Func: "single_value", Args: []plan.Expr{val}, DataType: val.DataType, Null: true, Name: val.Name,
	}})
	lk, rk, cond, err := fs.keys(agg, 0, width(input))
	if err != nil {
		return nil, err
	}
	return plan.NewJoin(input, agg, fs.joinType(plan.LeftJoin), lk, rk, cond), nil
}

// columnRefsFrom references k columns of s from position from on.
func columnRefsFrom(s *arrow.Schema, from, k int) []plan.Expr {
	out := make([]plan.Expr, k)
	for i := range out {
		out[i] = fieldRef(s, from+i)
	}
	return out
}

// flatExists plans EXISTS (q) through the general decorrelation: a mark join on D.
func (eb *exprBinder) flatExists(q ast.Statement) (plan.Expr, error) {
	input, fs, err := eb.bindFlatInput(q, false)
	if err != nil {
		return nil, err
	}
	mark, err := fs.markJoin(input, nil)
	if err != nil {
		return nil, err
	}
	return orFalse(mark)
}

// orFalse is coalesce(mark, false).
func orFalse(mark plan.Expr) (plan.Expr, error) {
	return functions.NewCall("coalesce", []plan.Expr{mark, &plan.Literal{Value: scalar.NewBooleanScalar(false)}})
}

// bindFlatInput binds q in general mode over the input subqueries join onto, checking
// that it has one column when one is set.
func (eb *exprBinder) bindFlatInput(q ast.Statement, one bool) (*plan.Node, *flatSubquery, error) {
	input, err := eb.requireInput()
	if err != nil {
		return nil, nil, err
	}
	fs, err := eb.b.bindFlat(q, eb.scope, *input)
	if err != nil {
		return nil, nil, err
	}
	if one && fs.ncols != 1 {
		return nil, nil, dberr.New(dberr.Binder, "Subquery returns %d columns - expected 1", fs.ncols)
	}
	return input, fs, nil
}

// markJoin mark joins the flattened subquery onto the input on D and cond (over the input's
// columns, then the subquery's) and returns the mark.
func (fs *flatSubquery) markJoin(input *plan.Node, cond plan.Expr) (plan.Expr, error) {
	lk, rk, kcond, err := fs.keys(fs.plan, fs.ncols, width(*input))
	if err != nil {
		return nil, err
	}
	j := plan.NewJoin(*input, fs.plan, plan.MarkJoin, lk, rk, conjoinAll([]plan.Expr{cond, kcond}))
	*input = j
	return fieldRef(j.Schema(), width(j)-1), nil
}

// flatAny plans x fn ANY (q) through the general decorrelation.
func (eb *exprBinder) flatAny(q ast.Statement, x plan.Expr, fn string) (plan.Expr, error) {
	if eb.input == nil && eb.deferred != nil {
		return eb.deferredAny(q, x, fn) // grouped_subquery.go
	}
	input, fs, err := eb.bindFlatInput(q, true)
	if err != nil {
		return nil, err
	}
	return fs.anyMarks(input, x, fn)
}

// anyMarks mark joins the flattened one-column subquery onto the input twice, for the two
// marks of bindQuantified (quantified.go), and returns x fn ANY (q).
func (fs *flatSubquery) anyMarks(input *plan.Node, x plan.Expr, fn string) (plan.Expr, error) {
	var marks [2]plan.Expr
	for i := range marks {
		s := fieldRef(fs.plan.Schema(), 0)
		s.Index += width(*input)
		c, err := functions.NewCall(fn, []plan.Expr{x, s})
		if err != nil {
			return nil, err
		}
		cond := plan.Expr(c)
		if i == 1 {
			if cond, err = functions.NewCall("is_null", []plan.Expr{c}); err != nil {
				return nil, err
			}
		}
		m, err := fs.markJoin(input, cond)
		if err != nil {
			return nil, err
		}
		if marks[i], err = orFalse(m); err != nil {
			return nil, err
		}
	}
	trueLit := &plan.Literal{Value: scalar.NewBooleanScalar(true)}
	falseLit := &plan.Literal{Value: scalar.NewBooleanScalar(false)}
	return functions.NewCall("case", []plan.Expr{marks[0], trueLit, marks[1], nullBool(), falseLit})
}

// flatMark plans EXISTS (q) (x nil) or x IN (q) through the general decorrelation.
func (eb *exprBinder) flatMark(q ast.Statement, x ast.Expr, pos ast.Pos) (plan.Expr, error) {
	if x == nil {
		if eb.input == nil && eb.deferred != nil {
			return eb.deferredExists(q, pos) // grouped_subquery.go
		}
		return eb.flatExists(q)
	}
	l, err := eb.bind(x)
	if err != nil {
		return nil, err
	}
	return eb.flatAny(q, l, "equal")
}
