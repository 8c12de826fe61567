// Package optimize rewrites logical plans (planner/plan) into cheaper equivalent ones.
// Rules run in DuckDB's order for the parts that matter for columnar scans; each family
// lives in its own rules_<family>.go file:
//
//	rules_window_min.go a decorrelated min/max subquery over the outer query's joins minus
//	                  one table (TPC-H q02) becomes a window min over the outer join
//	rules_filter.go   filter pushdown: conjuncts move down through projections, sorts and
//	                  joins (never below a join's null-supplying side) into Scan.Filter;
//	                  cross join + equality filter becomes an inner join with keys
//	rules_join_order.go join ordering: regions of inner joins are reordered from
//	                  cardinality estimates (plan.Estimator), smaller input on the build side
//	rules_semi.go     semi and anti joins move below projections and into the input of
//	                  an inner join that holds their keys, when it is estimated smaller
//	rules_reduce.go   an aggregate joined on its group keys reads only the rows whose keys
//	                  the other side can hold (semi-join reduction, small key sources only)
//	rules_project.go  projection pushdown: every node keeps only the columns its parents
//	                  use, through joins, down to Scan.Columns (an empty list for count(*))
//	rules_index.go    scalar indexes: the indexable conjuncts of a scan's filter become
//	                  Scan.Index when the table's indexes select few enough rows
//	rules_fold.go     constant integer arithmetic and literal casts in conditions are
//	                  evaluated once, at plan time
//	rules_order.go    filter conjuncts that cannot fail run cheapest first (integer and
//	                  date comparisons with constants before string IN lists and LIKE)
//	rules_limit.go    limit pushdown: LIMIT n OFFSET m over a Scan (through projections)
//	                  becomes Scan.Limit = n+m, a hint the scan may stop early on; the
//	                  Limit node stays and applies offset and count exactly
//
// ORDER BY + LIMIT stays Sort + Limit for now (a TopN node comes later). Plans are
// immutable: rules build new nodes and never modify their input.
package optimize

import (
	"context"

	"github.com/flightd/flightd/planner/plan"
)

// Optimize applies every rule family once, in order. It is OptimizeContext without
// cancellation.
func Optimize(n plan.Node) plan.Node { return OptimizeContext(context.Background(), n) }

// OptimizeContext applies every rule family once, in order. ctx bounds the I/O of the index
// rule (rules_index.go), which asks tables with scalar indexes how many rows a filter
// selects; it runs last, on the final scan filters.
func OptimizeContext(ctx context.Context, n plan.Node) plan.Node {
	n = windowMins(n)
	n = pushFilters(n)
	n = reorderJoins(n)
	n = pushSemiJoins(n)
	n = reduceAggregates(n)
	n = pushSemiJoins(n) // the reductions' semi joins (q02: partsupp by the outer part keys)
	n = pruneColumns(n)
	n = pushLimits(n)
	n = foldConstants(n)
	n = orderConjuncts(n)
	n = useIndexes(ctx, n)
	return n
}

// withChildren rebuilds n over new children (in Children order). Nodes are shallow-copied.
func withChildren(n plan.Node, kids []plan.Node) plan.Node {
	switch n := n.(type) {
	case *plan.Filter:
		return &plan.Filter{Input: kids[0], Cond: n.Cond}
	case *plan.Project:
		return plan.NewProject(kids[0], n.Exprs, n.Names)
	case *plan.Aggregate:
		return plan.NewAggregate(kids[0], n.GroupBy, n.Names, n.Aggs)
	case *plan.Sort:
		return &plan.Sort{Input: kids[0], Keys: n.Keys}
	case *plan.Limit:
		return &plan.Limit{Input: kids[0], Offset: n.Offset, Count: n.Count}
	case *plan.Join:
		return plan.NewJoin(kids[0], kids[1], n.Type, n.LeftKeys, n.RightKeys, n.Cond)
	case *plan.SetOp:
		return plan.NewSetOp(kids[0], kids[1], n.Kind, n.All)
	case *plan.Window:
		return plan.NewWindow(kids[0], n.Funcs)
	case *plan.Unnest:
		return n.WithInput(kids[0])
	}
	return n
}

// transformUp applies f bottom-up to every node of the tree.
func transformUp(n plan.Node, f func(plan.Node) plan.Node) plan.Node {
	kids := n.Children()
	if len(kids) > 0 {
		newKids := make([]plan.Node, len(kids))
		for i, k := range kids {
			newKids[i] = transformUp(k, f)
		}
		n = withChildren(n, newKids)
	}
	return f(n)
}

// copyScan returns a new scan of the same table, columns, row columns, filter and limit.
func copyScan(s *plan.Scan) *plan.Scan {
	out := plan.NewRowScan(s.Table, s.Columns, s.RowID, s.RowAddr)
	out.Filter, out.Limit = s.Filter, s.Limit
	return out
}
