package optimize

import "github.com/flightd/flightd/planner/plan"

// pushLimits gives a scan under LIMIT (possibly through projections, which keep row
// counts) the number of rows the limit can use: offset + count. The Limit stays.
func pushLimits(n plan.Node) plan.Node {
	return transformUp(n, func(n plan.Node) plan.Node {
		l, ok := n.(*plan.Limit)
		if !ok || l.Count < 0 {
			return n
		}
		in, ok := limitScan(l.Input, l.Offset+l.Count)
		if !ok {
			return n
		}
		return &plan.Limit{Input: in, Offset: l.Offset, Count: l.Count}
	})
}

// limitScan rebuilds n with the scan under it limited to k rows; ok is false when n is not
// a chain of projections over a scan.
func limitScan(n plan.Node, k int64) (plan.Node, bool) {
	switch n := n.(type) {
	case *plan.Scan:
		s := copyScan(n)
		if s.Limit < 0 || k < s.Limit {
			s.Limit = k
		}
		return s, true
	case *plan.Project:
		in, ok := limitScan(n.Input, k)
		if !ok {
			return n, false
		}
		return plan.NewProject(in, n.Exprs, n.Names), true
	}
	return n, false
}
