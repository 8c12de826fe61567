package flightsrv

import "github.com/flightd/flightd/planner/plan"

// streamWorkers is the number of scan workers for a plan that only streams (streamsOnly)
// when no filter drops rows on the way: half the server's workers, at least one. Such a
// result leaves the server at the speed its single gRPC sender and the client take it, so
// more decoders only queue batches and take cores from the sender, the client and other
// queries. Measured on 2 cores with SF1 lineitem to pyarrow (bench/RESULTS.md): one worker
// gave 0.95 of the transport ceiling where two gave 0.81, with less server CPU. A filtered
// scan keeps every worker: its output is a fraction of what it decodes.
func streamWorkers(n plan.Node, workers int) int {
	if hasFilter(n) {
		return workers
	}
	return max(1, workers/2)
}

// hasFilter reports whether a streaming plan filters rows (a Filter node or a filter
// pushed into a scan).
func hasFilter(n plan.Node) bool {
	switch n := n.(type) {
	case *plan.Filter:
		return true
	case *plan.Scan:
		if n.Filter != nil {
			return true
		}
	}
	for _, c := range n.Children() {
		if hasFilter(c) {
			return true
		}
	}
	return false
}
