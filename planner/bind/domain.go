package bind

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// A correlated aggregate whose correlation is not only inner = outer equalities (say
// `(SELECT sum(y) FROM t WHERE t.a < s.b)`) cannot be grouped by inner key expressions.
// It is decorrelated over a domain, as in Neumann & Kemper's "Unnesting arbitrary
// queries": D is the duplicate-free set of the outer columns the correlation reads, the
// subquery's input is joined with D on the correlation (equalities as keys, the rest as
// the join condition) and aggregated per D row. D's columns are the subquery's correlation
// keys, equal to the outer columns, so it joins back onto the outer query like an
// equality-correlated subquery.
//
// While the subquery is bound the outer query's plan is not known yet, so D is a Project
// over a placeholder; attachDomain points it at the real outer input when the subquery is
// joined onto it.

// domain is the placeholder for D: proj.Input is replaced by attachDomain.
type domain struct {
	proj *plan.Project
	cols []*plan.ColumnRef // the outer columns D holds, over the outer query's input
	// marker is the subquery input's non-NULL marker column in input ⟖ D.
	marker *plan.ColumnRef
}

// decorrelateDomain rewrites the correlation of an aggregating correlated subquery with
// residual conditions (or of any aggregating lateral subquery, or of an aggregating scalar
// subquery whose value over no rows is not NULL, empty_group.go): st.input becomes input ⟖ D
// (a right join: every D row stays) and the aggregate groups by D's columns. Afterwards
// the correlation looks like an equality correlation (inner: D's columns in the
// aggregate, outer: the outer columns) with the domain set.
func (st *selectState) decorrelateDomain() error {
	c := st.in.corr
	if c == nil || len(c.residual) == 0 && !(c.lateral && len(c.inner) > 0) && !st.needsEmptyGroup() {
		return nil
	}
	cols, index := domainColumns(c)
	if len(cols) == 0 {
		return dberr.New(dberr.Internal, "correlated subquery without outer columns")
	}
	d := newDomain(cols)
	nin := st.input.Schema().NumFields()
	// The input gets a non-NULL marker column, so that D rows without a match (NULL
	// extended by the right join) are left out of every aggregate (filterDomainAggs).
	input, marker := withMarker(st.input, 0)
	d.marker = marker.(*plan.ColumnRef)
	dbase := nin + 1
	toD := func(base int) func(*plan.ColumnRef) plan.Expr {
		return func(col *plan.ColumnRef) plan.Expr {
			x := *col
			x.Index = base + index[col.Index]
			return &x
		}
	}
	rightKeys := make([]plan.Expr, len(c.outer))
	for i, o := range c.outer {
		rightKeys[i] = plan.RewriteColumns(o, toD(0))
	}
	var conds []plan.Expr
	for _, r := range c.residual {
		conds = append(conds, mapOuter(r, func(o *outerRef) plan.Expr { return toD(dbase)(o.col) }))
	}
	st.input = plan.NewJoin(input, d.proj, plan.RightJoin, c.inner, rightKeys, plan.Conjoin(conds))
	groups := make([]plan.Expr, len(cols))
	outer := make([]plan.Expr, len(cols))
	for i, col := range cols {
		groups[i] = toD(dbase)(col)
		outer[i] = col
	}
	c.inner, c.outer, c.residual, c.extra, c.domain = groups, outer, nil, nil, d
	return nil
}

// filterDomainAggs restricts every aggregate of a domain-decorrelated subquery to the rows
// that come from its input (not the NULL rows the right join adds for D values without a
// match), so that such a D value aggregates an empty set: count 0, sum NULL, ...
func (st *selectState) filterDomainAggs() {
	c := st.in.corr
	if c == nil || c.domain == nil || st.agg == nil {
		return
	}
	for i := range st.agg.aggs {
		a := &st.agg.aggs[i]
		if a.Filter == nil {
			a.Filter = c.domain.marker
		} else {
			a.Filter = plan.Conjoin([]plan.Expr{a.Filter, c.domain.marker})
		}
	}
}

func newDomain(cols []*plan.ColumnRef) *domain {
	fields := make([]arrow.Field, len(cols))
	refs := make([]plan.Expr, len(cols))
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = "__domain" + strconv.Itoa(i)
		fields[i] = arrow.Field{Name: names[i], Type: col.DataType, Nullable: col.Null}
		refs[i] = &plan.ColumnRef{Index: i, Name: names[i], DataType: col.DataType, Null: col.Null}
	}
	placeholder := plan.NewValues(arrow.NewSchema(fields, nil), nil)
	return &domain{proj: plan.NewProject(placeholder, refs, names), cols: cols}
}

// attachDomain points the subquery's domain (if any) at the outer input it is joined onto:
// D = SELECT DISTINCT cols FROM input.
func (sq *subquery) attachDomain(input plan.Node) {
	d := sq.corr.domain
	if d == nil {
		return
	}
	exprs := make([]plan.Expr, len(d.cols))
	names := make([]string, len(d.cols))
	for i, col := range d.cols {
		exprs[i], names[i] = col, d.proj.Names[i]
	}
	d.proj.Input = distinct(plan.NewProject(input, exprs, names))
}

// mapOuter returns e with every outer reference replaced by f's result.
func mapOuter(e plan.Expr, f func(*outerRef) plan.Expr) plan.Expr {
	switch x := e.(type) {
	case *outerRef:
		return f(x)
	case *plan.Call:
		out := *x
		out.Args = make([]plan.Expr, len(x.Args))
		for i, a := range x.Args {
			out.Args[i] = mapOuter(a, f)
		}
		return &out
	case *plan.Cast:
		out := *x
		out.Input = mapOuter(x.Input, f)
		return &out
	}
	return e
}

// nullSafeKeys makes join keys that match NULL with NULL, as a domain value must find its
// outer rows even when an outer column is NULL: each nullable key pair k, k' becomes the
// pairs is_null(k), is_null(k') and coalesce(k, z), coalesce(k', z) for a constant z of
// the key's type. Keys whose type has no such constant go to the returned condition
// (is_not_distinct_from, over the left columns then the right ones, nleft of them).
func nullSafeKeys(left, right []plan.Expr, nleft int) (lk, rk []plan.Expr, cond plan.Expr, err error) {
	var conds []plan.Expr
	for i, l := range left {
		r := right[i]
		if !l.Nullable() && !r.Nullable() {
			lk, rk = append(lk, l), append(rk, r)
			continue
		}
		z, zerr := functions.Cast(&plan.Literal{Value: scalar.NewInt64Scalar(0)}, l.Type())
		if zerr != nil || !arrow.TypeEqual(l.Type(), r.Type()) {
			shifted := plan.RewriteColumns(r, func(c *plan.ColumnRef) plan.Expr {
				x := *c
				x.Index += nleft
				return &x
			})
			c, err := functions.NewCall("is_not_distinct_from", []plan.Expr{l, shifted})
			if err != nil {
				return nil, nil, nil, err
			}
			conds = append(conds, c)
			continue
		}
		for _, side := range []struct {
			e    plan.Expr
			keys *[]plan.Expr
		}{{l, &lk}, {r, &rk}} {
			isNull, err := functions.NewCall("is_null", []plan.Expr{side.e})
			if err != nil {
				return nil, nil, nil, err
			}
			filled, err := functions.NewCall("coalesce", []plan.Expr{side.e, z})
			if err != nil {
				return nil, nil, nil, err
			}
			*side.keys = append(*side.keys, isNull, filled)
		}
	}
	return lk, rk, plan.Conjoin(conds), nil
}

// requireNoDomain rejects domain-decorrelated aggregates where only the scalar subquery
// path joins them back correctly (a semi or mark join would treat a NULL outer column as
// no match).
func (sq *subquery) requireNoDomain(where string) error {
	if sq.corr.domain != nil {
		return dberr.NotSupported("correlated " + where + " with aggregates whose correlation is not an equality between an inner and an outer expression")
	}
	return nil
}

// domainColumns are the distinct outer columns c reads (in its outer key expressions and
// residual conditions), with each one's position by outer column index.
func domainColumns(c *correlation) ([]*plan.ColumnRef, map[int]int) {
	var cols []*plan.ColumnRef
	index := map[int]int{}
	add := func(col *plan.ColumnRef) {
		if _, seen := index[col.Index]; !seen {
			index[col.Index] = len(cols)
			cols = append(cols, col)
		}
	}
	for _, o := range c.outer {
		plan.Columns(o, add)
	}
	for _, r := range c.residual {
		walk(r, func(x plan.Expr) {
			if o, ok := x.(*outerRef); ok {
				add(o.col)
			}
		})
	}
	return cols, index
}
