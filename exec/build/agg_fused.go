package build

import (
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// fusedFilter returns the scan an aggregate over a filtered scan should read (the same scan
// without its filter) and the filter the aggregate then applies itself
// (ops.Aggregate.SetInputFilter), when the aggregate's input is a scan whose filter
// ops.FusableFilter accepts. Otherwise it returns the aggregate's input scan (nil when the
// input is not a scan) and a nil filter. EXPLAIN ANALYZE keeps the unfused form, so the
// scan's row counts stay those of its filtered output.
func fusedFilter(n *plan.Aggregate, env exec.Env) (*plan.Scan, plan.Expr) {
	scan, ok := n.Input.(*plan.Scan)
	if !ok {
		return nil, nil
	}
	if env.Analyze || scan.Filter == nil || scan.Limit >= 0 || !ops.FusableFilter(scan.Filter) {
		return scan, nil
	}
	bare := *scan
	bare.Filter = nil
	return &bare, scan.Filter
}

// buildFusedAggregate builds the serial aggregate over a scan whose filter it applies itself
// (fusedFilter); ok is false when the plan does not qualify.
func buildFusedAggregate(n *plan.Aggregate, env exec.Env) (op exec.Operator, ok bool) {
	scan, cond := fusedFilter(n, env)
	if cond == nil {
		return nil, false
	}
	rec := ops.NewRecycler(env.Mem) // the scan's batches are released within the aggregate
	senv := env
	senv.Mem = rec
	agg := ops.NewAggregate(ops.NewScan(scan, senv), n.GroupBy, n.Aggs, n.Schema(), env)
	agg.OwnRecycler(rec)
	agg.SetInputFilter(cond)
	return agg, true
}
