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

// flipRows is the estimated left input size under which a semi, anti or left join builds
// on its left input and streams its right input (ops.NewFlippedHashBuild): in a parallel
// pipeline through its right input, or as the serial ops.HashJoin, which decides at run
// time for semi and anti joins.
var flipRows int64 = 1 << 19

// joinProbe returns the input of join j a worker of a parallel pipeline streams through
// it: the left one, or the right one when j builds on its left input (flipped); ok is
// false when j cannot be part of a parallel pipeline.
func joinProbe(j *plan.Join) (probe plan.Node, flipped, ok bool) {
	if len(j.LeftKeys) == 0 {
		return nil, false, false
	}
	if flipJoin(j) {
		return j.Right, true, true
	}
	if !ops.SharedJoinType(j.Type) {
		return nil, false, false
	}
	return j.Left, false, true
}

// leftFlipRatio is how many times larger than its left input a left join's right input
// must be estimated for the join to build on the left input. A flipped left join emits
// its pairs in the right input's order; on TPC-H q13 (customer LEFT JOIN orders, ratio
// about 10, then GROUP BY c_custkey) the aggregate's group lookups in that scattered
// order cost more than the flip saved (measured 1.1x CPU), so only much larger right
// inputs flip.
const leftFlipRatio = 16

// flipJoin reports whether join j builds on its left input in a parallel pipeline: a
// semi or anti join whose left input is estimated small, a left join whose left input is
// estimated small and much smaller than its right one (leftFlipRatio).
func flipJoin(j *plan.Join) bool {
	if !ops.FlippedJoinType(j.Type) {
		return false
	}
	est := plan.NewEstimator()
	l := est.Rows(j.Left)
	if l > float64(flipRows) {
		return false
	}
	return j.Type != plan.LeftJoin || leftFlipRatio*l < est.Rows(j.Right)
}

// buildParallelJoin builds join j as a Gather over parallel probe pipelines when env
// allows several workers and j's probe side is a pipeline over a scan without a pushed
// limit; ok is false otherwise (the caller builds the serial form).
func buildParallelJoin(j *plan.Join, env exec.Env) (op exec.Operator, ok bool, err error) {
	if env.Parallelism < 2 {
		return nil, false, nil
	}
	if _, _, ok := joinProbe(j); !ok {
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
	attachScanFilters(scan, env, scans...) // runtime_filter.go
	out := make([]exec.Operator, len(scans))
	for i, s := range scans {
		out[i] = buildOnWorker(n, wrap(s, scan, wenv), builds, wrapTop, wenv)
	}
	return out, nil
}

// sharedBuilds builds the build side of every join of the pipeline n (the input its
// probe side is not), for users workers.
func sharedBuilds(n plan.Node, users int, env exec.Env) (map[*plan.Join]*ops.HashBuild, error) {
	builds := map[*plan.Join]*ops.HashBuild{}
	for {
		switch m := n.(type) {
		case *plan.Filter:
			n = m.Input
		case *plan.Project:
			n = m.Input
		case *plan.Join:
			probe, flipped, _ := joinProbe(m)
			buildSide := m.Right
			if flipped {
				buildSide = m.Left
			}
			in, err := Build(buildSide, env)
			if err != nil {
				closeBuilds(builds)
				return nil, err
			}
			if flipped {
				builds[m] = ops.NewFlippedHashBuild(in, joinSpec(m), env, users)
			} else {
				builds[m] = ops.NewHashBuild(in, joinSpec(m), env, users)
			}
			builds[m].SetRuntimeFilters(joinFilters(m, env)) // runtime_filter.go
			n = probe
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
		probe, _, _ := joinProbe(m)
		h := ops.NewSharedHashJoin(buildOnWorker(probe, scan, builds, true, env), builds[m], joinSpec(m), env)
		h.SetProbeFirst(probeFirst(m, env)) // runtime_filter.go
		op = h
	default:
		return scan
	}
	if !wrapTop {
		return op
	}
	return wrap(op, n, env)
}
