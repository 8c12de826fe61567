package bind

import (
	"strconv"

	"github.com/flightd/flightd/planner/plan"
)

// scalarOverDomain plans a scalar subquery without aggregates whose correlation is not
// only inner = outer equalities (`(SELECT y FROM u WHERE u.k < t.id)`): over the domain D
// of the outer columns the correlation reads (domain.go), the subquery's rows are right
// joined with D on the correlation, single_value (an error on more than one row) runs per
// D row over the rows that came from the subquery (a marker column tells them from the
// NULL rows the right join adds), and the result joins back onto the input on NULL-safe
// keys. It returns the subquery's value over the new input.
func (eb *exprBinder) scalarOverDomain(sq *subquery, input *plan.Node) (plan.Expr, error) {
	c := sq.corr
	refs, index := domainColumns(c)
	cols := make([]plan.Expr, len(refs))
	for i, r := range refs {
		cols[i] = r
	}
	names := make([]string, len(cols))
	for i := range cols {
		names[i] = "__domain" + strconv.Itoa(i)
	}
	d := distinct(plan.NewProject(*input, cols, names))
	width := sq.plan.Schema().NumFields()
	right, marker := withMarker(sq.plan, 0)
	toD := func(base int) func(*plan.ColumnRef) plan.Expr {
		return func(col *plan.ColumnRef) plan.Expr {
			x := *col
			x.Index = base + index[col.Index]
			return &x
		}
	}
	rk := make([]plan.Expr, len(c.outer))
	for i, o := range c.outer {
		rk[i] = plan.RewriteColumns(o, toD(0))
	}
	extraBase := sq.ncols + len(c.outer)
	var conds []plan.Expr
	for _, r := range c.residual {
		r = plan.RewriteColumns(r, func(col *plan.ColumnRef) plan.Expr {
			for i, e := range c.extra {
				if e.Index == col.Index {
					x := *col
					x.Index = extraBase + i
					return &x
				}
			}
			return col
		})
		conds = append(conds, mapOuter(r, func(o *outerRef) plan.Expr { return toD(width + 1)(o.col) }))
	}
	j := plan.NewJoin(right, d, plan.RightJoin, sq.rightKeys(), rk, plan.Conjoin(conds))
	groups := make([]plan.Expr, len(cols))
	for i, col := range cols {
		groups[i] = toD(width + 1)(col.(*plan.ColumnRef))
	}
	val := fieldRef(sq.plan.Schema(), 0)
	agg := plan.NewAggregate(j, groups, names, []plan.AggCall{{
		Func: "single_value", Args: []plan.Expr{val}, Filter: marker, DataType: val.DataType, Null: true, Name: val.Name,
	}})
	lk, aggKeys, cond, err := nullSafeKeys(cols, columnRefs(agg.Schema(), len(cols)), (*input).Schema().NumFields())
	if err != nil {
		return nil, err
	}
	jn := plan.NewJoin(*input, agg, plan.LeftJoin, lk, aggKeys, cond)
	*input = jn
	return fieldRef(jn.Schema(), jn.Schema().NumFields()-1), nil
}
