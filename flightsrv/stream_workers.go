package flightsrv

import "github.com/flightd/flightd/planner/plan"

// streamWorkers is the number of scan workers for a plan that only streams (streamsOnly)
// and does no work per row beyond decoding: no filter, and projections of columns and
// constants only. It gets half the server's workers, at least one. Such a result leaves the
// server at the speed its single gRPC sender and the client take it, so more decoders only
// queue batches and take cores from the sender, the client and other queries. Measured on
// 2 cores with SF1 lineitem to pyarrow (bench/RESULTS.md): one worker gave 0.85-0.97 of the
// transport ceiling where two gave 0.67-0.73, with less server CPU. A filter or a computed
// column keeps every worker: the work per row is then more than the sender's.
func streamWorkers(n plan.Node, workers int) int {
	if computes(n) {
		return workers
	}
	return max(1, workers/2)
}

// computes reports whether a streaming plan does per-row work besides decoding: a Filter
// node, a filter pushed into a scan, or a projection of anything but columns and literals.
func computes(n plan.Node) bool {
	switch n := n.(type) {
	case *plan.Filter:
		return true
	case *plan.Scan:
		if n.Filter != nil {
			return true
		}
	case *plan.Project:
		for _, e := range n.Exprs {
			switch e.(type) {
			case *plan.ColumnRef, *plan.Literal:
			default:
				return true
			}
		}
	}
	for _, c := range n.Children() {
		if computes(c) {
			return true
		}
	}
	return false
}
