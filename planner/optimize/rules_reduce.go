package optimize

import (
	"fmt"

	"github.com/flightd/flightd/planner/plan"
)

// reduceAggregates filters the input of an aggregate joined on its group keys by the keys
// the other side can hold (a semi-join reduction, like the delim join DuckDB uses for
// decorrelated subqueries). For an inner or left join L ⋈ R on L.k = R.k where R groups by
// k (through projections, filters and further aggregates grouped by k), only the groups
// whose key occurs in L can match, so R's input X becomes X ⋉ π_k(S), where S is the
// smallest input below L that holds every value of L.k (L itself, or an input of the
// inner and semi joins, projections and filters it is made of). It applies when S is
// estimated at most a quarter of X: TPC-H q17 and q20 aggregate lineitem only for the parts
// the outer query selected instead of for every part. S is planned twice (once in L).
func reduceAggregates(n plan.Node) plan.Node {
	est := plan.NewEstimator()
	return transformUp(n, func(m plan.Node) plan.Node {
		j, ok := m.(*plan.Join)
		if !ok || (j.Type != plan.InnerJoin && j.Type != plan.LeftJoin) || len(j.LeftKeys) == 0 {
			return m
		}
		lcols, lok := refIndexes(j.LeftKeys)
		rcols, rok := refIndexes(j.RightKeys)
		if !lok || !rok {
			return m
		}
		for _, src := range keySources(j.Left, lcols, est) {
			right, reduced := reduceBelow(j.Right, rcols, keyProject(src), false, est)
			if reduced {
				return plan.NewJoin(j.Left, right, j.Type, j.LeftKeys, j.RightKeys, j.Cond)
			}
		}
		return m
	})
}

// keyProject projects the key columns of a key source, named __key0, __key1, ...
func keyProject(src keyCandidate) plan.Node {
	exprs, names := make([]plan.Expr, len(src.cols)), make([]string, len(src.cols))
	for i, c := range src.cols {
		f := src.node.Schema().Field(c)
		exprs[i] = &plan.ColumnRef{Index: c, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		names[i] = fmt.Sprintf("__key%d", i)
	}
	return plan.NewProject(src.node, exprs, names)
}

// refIndexes returns the column indexes of es when every one is a column reference.
func refIndexes(es []plan.Expr) ([]int, bool) {
	out := make([]int, len(es))
	for i, e := range es {
		c, ok := e.(*plan.ColumnRef)
		if !ok {
			return nil, false
		}
		out[i] = c.Index
	}
	return out, true
}

// mapRefs maps cols through exprs when each is a column reference there.
func mapRefs(exprs []plan.Expr, cols []int) ([]int, bool) {
	out := make([]int, len(cols))
	for i, c := range cols {
		if c >= len(exprs) {
			return nil, false
		}
		ref, ok := exprs[c].(*plan.ColumnRef)
		if !ok {
			return nil, false
		}
		out[i] = ref.Index
	}
	return out, true
}

// keyCandidate is a node whose columns cols hold every key value of a join input.
type keyCandidate struct {
	node plan.Node
	cols []int
}

// keySources returns the key sources to try, best first: the smallest (estimated) node
// below n, along inner and semi joins, projections and filters, whose columns cols hold
// every value n's columns cols can; preceded, when that node is a join, by the first
// join-free candidate (a scan under filters and projections) estimated at most
// scanSourceRatio times larger: the keys only need to be a superset, and a join planned
// twice costs its every input again (TPC-H q02 planned its whole outer join a second time
// for the keys).
func keySources(n plan.Node, cols []int, est *plan.Estimator) []keyCandidate {
	best, bestCols := n, cols
	var flat plan.Node // the first join-free candidate
	var flatCols []int
	for {
		if flat == nil && joinFree(n) {
			flat, flatCols = n, cols
		}
		switch m := n.(type) {
		case *plan.Project:
			mapped, ok := mapRefs(m.Exprs, cols)
			if !ok {
				return pickSource(best, bestCols, flat, flatCols, est)
			}
			n, cols = m.Input, mapped
		case *plan.Filter:
			n = m.Input
		case *plan.Join:
			nA := m.Left.Schema().NumFields()
			switch {
			case m.Type == plan.SemiJoin || m.Type == plan.AntiJoin || allBelow(cols, nA) && innerLike(m):
				n = m.Left
			case innerLike(m) && allAtLeast(cols, nA):
				n, cols = m.Right, shifted(cols, -nA)
			default:
				return pickSource(best, bestCols, flat, flatCols, est)
			}
		default:
			return pickSource(best, bestCols, flat, flatCols, est)
		}
		if est.Rows(n) < est.Rows(best) {
			best, bestCols = n, cols
		}
	}
}

// scanSourceRatio bounds how much larger than the smallest key source a join-free one
// may be estimated and still be preferred.
const scanSourceRatio = 4

// pickSource orders the smallest key source and the first join-free one.
func pickSource(best plan.Node, bestCols []int, flat plan.Node, flatCols []int, est *plan.Estimator) []keyCandidate {
	out := []keyCandidate{{best, bestCols}}
	if flat != nil && !joinFree(best) && est.Rows(flat) <= scanSourceRatio*est.Rows(best) {
		out = append([]keyCandidate{{flat, flatCols}}, out...)
	}
	return out
}

// joinFree reports whether n is a scan under filters and projections.
func joinFree(n plan.Node) bool {
	for {
		switch m := n.(type) {
		case *plan.Scan:
			return true
		case *plan.Filter:
			n = m.Input
		case *plan.Project:
			n = m.Input
		default:
			return false
		}
	}
}

func allBelow(cols []int, n int) bool {
	for _, c := range cols {
		if c >= n {
			return false
		}
	}
	return true
}

func allAtLeast(cols []int, n int) bool {
	for _, c := range cols {
		if c < n {
			return false
		}
	}
	return true
}

func shifted(cols []int, d int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = c + d
	}
	return out
}

// reduceBelow puts the semi join with keys on columns cols of n as deep as it goes through
// projections, filters and aggregates grouped by those columns; underAgg says that an
// aggregate was passed (only then is a semi join placed).
func reduceBelow(n plan.Node, cols []int, keys plan.Node, underAgg bool, est *plan.Estimator) (plan.Node, bool) {
	switch m := n.(type) {
	case *plan.Project:
		if mapped, ok := mapRefs(m.Exprs, cols); ok {
			if in, ok := reduceBelow(m.Input, mapped, keys, underAgg, est); ok {
				return plan.NewProject(in, m.Exprs, m.Names), true
			}
		}
	case *plan.Filter:
		if in, ok := reduceBelow(m.Input, cols, keys, underAgg, est); ok {
			return &plan.Filter{Input: in, Cond: m.Cond}, true
		}
	case *plan.Aggregate:
		mapped, ok := mapRefs(m.GroupBy, cols)
		if !ok {
			return n, false
		}
		if in, ok := reduceBelow(m.Input, mapped, keys, true, est); ok {
			return plan.NewAggregate(in, m.GroupBy, m.Names, m.Aggs), true
		}
		return n, false
	}
	if !underAgg || 4*est.Rows(keys) > est.Rows(n) {
		return n, false
	}
	lk, rk := make([]plan.Expr, len(cols)), make([]plan.Expr, len(cols))
	for i, c := range cols {
		f := n.Schema().Field(c)
		lk[i] = &plan.ColumnRef{Index: c, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		kf := keys.Schema().Field(i)
		rk[i] = &plan.ColumnRef{Index: i, Name: kf.Name, DataType: kf.Type, Null: kf.Nullable}
	}
	return plan.NewJoin(n, keys, plan.SemiJoin, lk, rk, nil), true
}
