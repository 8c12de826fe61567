package build

import (
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Parallel probe pipelines (DuckDB's pipelines through join probes): a scan under filters,
// projections and hash joins whose probe side (left) is the pipeline runs as one copy per
// worker; the scans share their morsels (ops.NewSharedScans) and each join's build side is
// built once and shared (ops.HashBuild). Above an aggregate the copies feed a
// ParallelAggregate (parallel.go); elsewhere an ops.Gather merges their outputs.

// flipRows is the estimated left input size under which a semi or anti join stays out of
// parallel pipelines: the serial ops.HashJoin can then build on its (small) left input.
const flipRows = 1 << 19

// joinInPipeline reports whether a worker of a parallel pipeline can run join j's probe.
func joinInPipeline(j *plan.Join) bool {
	if len(j.LeftKeys) == 0 || !ops.SharedJoinType(j.Type) {
		return false
	}
	if j.Type == plan.SemiJoin || j.Type == plan.AntiJoin {
		return plan.NewEstimator().Rows(j.Left) > flipRows
	}
	return true
}

// buildParallelJoin builds join j as a Gather over parallel probe pipelines when env
// allows several workers and j's probe side is a pipeline over a scan without a pushed
// limit; ok is false otherwise (the caller builds the serial form).
func buildParallelJoin(j *plan.Join, env exec.Env) (op exec.Operator, ok bool, err error) {
	if env.Parallelism < 2 || !joinInPipeline(j) {
		return nil, false, nil
	}
	scan := pipelineScan(j)
	if scan == nil || scan.Limit >= 0 {
		return nil, false, nil
	}
	workers, err := buildWorkers(j, scan, false, env)
	if err != nil {
		return nil, false, err
	}
	return ops.NewGather(workers, j.Schema()), true, nil
}

// buildWorkers builds the pipeline n over scan once per worker (env.Parallelism of them),
// each with Parallelism 1; wrapTop says whether the copies of n itself are wrapped for
// EXPLAIN ANALYZE (not when the caller wraps the operator that merges them as n).
func buildWorkers(n plan.Node, scan *plan.Scan, wrapTop bool, env exec.Env) ([]exec.Operator, error) {
	wenv := env
	wenv.Parallelism = 1
	builds, err := sharedBuilds(n, env.Parallelism, env)
	if err != nil {
		return nil, err
	}
	scans, err := ops.NewSharedScans(scan, env.Parallelism, wenv)
	if err != nil {
		closeBuilds(builds)
		return nil, err
	}
	out := make([]exec.Operator, len(scans))
	for i, s := range scans {
		out[i] = buildOnWorker(n, wrap(s, scan, wenv), builds, wrapTop, wenv)
	}
	return out, nil
}

// sharedBuilds builds the build side of every join of the pipeline n, for users workers.
func sharedBuilds(n plan.Node, users int, env exec.Env) (map[*plan.Join]*ops.HashBuild, error) {
	builds := map[*plan.Join]*ops.HashBuild{}
	for {
		switch m := n.(type) {
		case *plan.Filter:
			n = m.Input
		case *plan.Project:
			n = m.Input
		case *plan.Join:
			right, err := Build(m.Right, env)
			if err != nil {
				closeBuilds(builds)
				return nil, err
			}
			builds[m] = ops.NewHashBuild(right, joinSpec(m), env, users)
			n = m.Left
		default:
			return builds, nil
		}
	}
}

// closeBuilds releases builds that no join will use.
func closeBuilds(builds map[*plan.Join]*ops.HashBuild) {
	for _, b := range builds {
		_ = b.Abandon()
	}
}

func joinSpec(j *plan.Join) ops.JoinSpec {
	return ops.JoinSpec{Type: j.Type, LeftKeys: j.LeftKeys, RightKeys: j.RightKeys, Cond: j.Cond, Schema: j.Schema()}
}

// buildOnWorker builds one worker's copy of the pipeline n on top of its scan.
func buildOnWorker(n plan.Node, scan exec.Operator, builds map[*plan.Join]*ops.HashBuild, wrapTop bool, env exec.Env) exec.Operator {
	var op exec.Operator
	switch m := n.(type) {
	case *plan.Filter:
		op = ops.NewFilter(buildOnWorker(m.Input, scan, builds, true, env), m.Cond, env)
	case *plan.Project:
		op = ops.NewProject(buildOnWorker(m.Input, scan, builds, true, env), m.Exprs, m.Schema(), env)
	case *plan.Join:
		op = ops.NewSharedHashJoin(buildOnWorker(m.Left, scan, builds, true, env), builds[m], joinSpec(m), env)
	default:
		return scan
	}
	if !wrapTop {
		return op
	}
	return wrap(op, n, env)
}
