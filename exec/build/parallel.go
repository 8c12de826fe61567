package build

import (
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// pipelineScan returns the scan at the bottom of n when n is a scan under any number of
// filters, projections and hash joins on their probe side (a streaming pipeline a worker
// can run per morsel), else nil.
func pipelineScan(n plan.Node) *plan.Scan {
	for {
		switch m := n.(type) {
		case *plan.Scan:
			return m
		case *plan.Filter:
			n = m.Input
		case *plan.Project:
			n = m.Input
		case *plan.Join: // the probe side of a hash join (parallel_join.go)
			probe, _, ok := joinProbe(m)
			if !ok {
				return nil
			}
			n = probe
		default:
			return nil
		}
	}
}

// buildParallelAggregate builds a morsel-parallel aggregate (one partial aggregate per
// worker over a scan sharing the morsels, then a merge) when env allows several workers,
// the input is a scan pipeline without a pushed limit and every aggregate can be merged.
// ok is false when the plan does not qualify; the caller then builds the serial form.
func buildParallelAggregate(n *plan.Aggregate, env exec.Env) (op exec.Operator, ok bool, err error) {
	scan := pipelineScan(n.Input)
	if env.Parallelism < 2 || scan == nil || scan.Limit >= 0 || !ops.CanCombine(n.Aggs) {
		return nil, false, nil
	}
	wenv := env
	wenv.Parallelism = 1
	rec := ops.NewRecycler(env.Mem) // the workers' batches are released within the workers
	wenv.Mem = rec
	read, cond := fusedFilter(n, env) // cond: the workers apply the scan's filter themselves
	if cond == nil {
		read = scan
	}
	scans, err := ops.NewSharedScans(read, env.Parallelism, wenv)
	if err != nil {
		rec.Close()
		return nil, false, err
	}
	if cond == nil {
		attachScanFilters(scan, env, scans...) // runtime_filter.go
	}
	builds, err := sharedBuilds(n.Input, len(scans), env) // joins' build sides (parallel_join.go)
	if err != nil {
		rec.Close()
		return nil, false, err
	}
	inputs := make([]exec.Operator, len(scans))
	for i, s := range scans {
		inputs[i] = s
		if cond == nil {
			inputs[i] = buildOnWorker(n.Input, wrap(s, scan, wenv), builds, true, wenv)
		}
	}
	p := ops.NewParallelAggregate(inputs, n.GroupBy, n.Aggs, n.Schema(), env)
	p.OwnRecycler(rec)
	if cond != nil {
		p.SetInputFilter(cond)
	}
	return p, true, nil
}

// buildOnScan builds the pipeline n (filters and projections over one scan) on top of the
// operator scan (already wrapped for EXPLAIN ANALYZE).
func buildOnScan(n plan.Node, scan exec.Operator, env exec.Env) exec.Operator {
	switch m := n.(type) {
	case *plan.Filter:
		return wrap(ops.NewFilter(buildOnScan(m.Input, scan, env), m.Cond, env), n, env)
	case *plan.Project:
		return wrap(ops.NewProject(buildOnScan(m.Input, scan, env), m.Exprs, m.Schema(), env), n, env)
	}
	return scan
}
