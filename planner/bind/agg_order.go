package bind

import (
	"fmt"

	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Aggregates with ORDER BY inside their parentheses (string_agg(x, ',' ORDER BY y),
// list(x ORDER BY y), first(x ORDER BY y)) are bound by sorting the aggregate's input:
// the executor feeds every group its rows in input order, so each group sees them sorted.
// Aggregates with different orders are computed by one aggregate per order (the
// unordered ones join the first), joined on the group keys (NULL matching NULL) and put
// back in their places by a projection, so that the result has the layout of one
// aggregate: the group keys, then the aggregates.

// addOrder binds f's ORDER BY over the aggregate input and records it as the order of the
// aggregate about to be added (aggs[len(aggs)] if it is new). It returns the order's
// text, part of the aggregate's identity, and its index in a.orders (-1: none).
func (a *aggContext) addOrder(argBinder *exprBinder, f *ast.FuncCall) (string, int, error) {
	if len(f.OrderBy) == 0 {
		return "", -1, nil
	}
	keys := make([]plan.SortKey, len(f.OrderBy))
	for i, o := range f.OrderBy {
		x, err := argBinder.bind(o.Expr)
		if err != nil {
			return "", 0, err
		}
		keys[i] = plan.SortKey{Expr: x, Descending: o.Desc}
		if o.NullsFirst != nil {
			keys[i].NullsFirst = *o.NullsFirst
		}
	}
	text := fmt.Sprint(keys)
	for k, t := range a.orderTexts {
		if t == text {
			return text, k, nil
		}
	}
	a.orders, a.orderTexts = append(a.orders, keys), append(a.orderTexts, text)
	return text, len(a.orders) - 1, nil
}

// newAggregate builds the aggregate of the query over in: one Aggregate over in sorted by
// the aggregates' ORDER BY (if any), or, for several orders, one per order joined as above.
func (a *aggContext) newAggregate(in plan.Node) (plan.Node, error) {
	if len(a.orders) <= 1 {
		if len(a.orders) == 1 {
			in = &plan.Sort{Input: in, Keys: a.orders[0]}
		}
		return plan.NewAggregate(in, a.groups, a.names, a.aggs), nil
	}
	ng := len(a.groups)
	pos := make([]int, len(a.aggs)) // each aggregate's column in the joined result
	var node plan.Node
	for k, keys := range a.orders {
		var part []plan.AggCall
		for i := range a.aggs {
			if o := a.orderOf(i); o == k || o < 0 && k == 0 {
				pos[i] = ng + len(part)
				part = append(part, a.aggs[i])
			}
		}
		agg := plan.NewAggregate(&plan.Sort{Input: in, Keys: keys}, a.groups, a.names, part)
		if node == nil {
			node = agg
			continue
		}
		nl := node.Schema().NumFields()
		for i := range a.aggs {
			if a.orderOf(i) == k {
				pos[i] += nl
			}
		}
		if ng == 0 {
			node = plan.NewJoin(node, agg, plan.CrossJoin, nil, nil, nil)
			continue
		}
		lk, rk, cond, err := nullSafeKeys(columnRefs(node.Schema(), ng), columnRefs(agg.Schema(), ng), nl) // domain.go
		if err != nil {
			return nil, err
		}
		node = plan.NewJoin(node, agg, plan.InnerJoin, lk, rk, cond)
	}
	refs := columnRefs(node.Schema(), node.Schema().NumFields())
	exprs := append([]plan.Expr{}, refs[:ng]...)
	names := append([]string{}, a.names...)
	for i, p := range pos {
		exprs, names = append(exprs, refs[p]), append(names, a.aggs[i].Name)
	}
	return plan.NewProject(node, exprs, names), nil
}

// orderOf is aggregate i's index in a.orders, -1 for none.
func (a *aggContext) orderOf(i int) int {
	if i < len(a.aggOrder) {
		return a.aggOrder[i]
	}
	return -1
}
