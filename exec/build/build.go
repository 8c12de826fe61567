// Package build turns an (optimized) logical plan into a tree of executable operators.
package build

import (
	"errors"
	"fmt"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Build turns n into a tree of operators that run with env. Nothing is opened: the caller
// Opens the root, drains it and Closes it (exec.Collect does all three).
//
// With env.Analyze every operator is wrapped in an exec.Analyzed; after the run,
// exec.Analyze(root) renders the EXPLAIN ANALYZE tree. With env.Parallelism > 1 an
// aggregate over a scan pipeline runs as a morsel-parallel ops.ParallelAggregate, and a
// Limit directly over a Sort always runs as an ops.TopN.
func Build(n plan.Node, env exec.Env) (exec.Operator, error) {
	env = env.WithDefaults()
	if env.Pool == nil { // the root of a query: its own pool, shared by the whole tree
		env.Pool = exec.NewMemoryPool(env.MemoryLimit)
	}
	if env.Analyze && env.Profile == nil {
		env.Profile = exec.NewProfile(env.Pool)
	}
	env = withRuntimeFilters(n, env) // runtime_filter.go
	// A subtree that occurs twice runs once (shared.go).
	if op, ok, err := buildSharedReader(n, env); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return wrap(op, n, env), nil
	}
	op, err := buildNode(n, env)
	if err != nil {
		return nil, err
	}
	return wrap(op, n, env), nil
}

// buildNode builds the operator of n (its inputs through Build).
func buildNode(n plan.Node, env exec.Env) (exec.Operator, error) {
	switch n := n.(type) {
	case *plan.Scan:
		s := ops.NewScan(n, env)
		attachScanFilters(n, env, s) // runtime_filter.go
		return s, nil
	case *plan.Filter:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewFilter(in, n.Cond, env), nil
	case *plan.Project:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewProject(in, n.Exprs, n.Schema(), env), nil
	case *plan.Aggregate:
		if op, ok, err := buildParallelAggregate(n, env); ok || err != nil {
			return op, err
		}
		if op, ok := buildFusedAggregate(n, env); ok {
			return op, nil
		}
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewAggregate(in, n.GroupBy, n.Aggs, n.Schema(), env), nil
	case *plan.Sort:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewSort(in, n.Keys, env), nil
	case *plan.Window:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewWindow(in, n.Funcs, n.Schema(), env), nil
	case *plan.Limit:
		if s, ok := n.Input.(*plan.Sort); ok && n.Count >= 0 {
			in, err := Build(s.Input, env)
			if err != nil {
				return nil, err
			}
			return ops.NewTopN(in, s.Keys, n.Offset, n.Count, env), nil
		}
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewLimit(in, n.Offset, n.Count), nil
	case *plan.Join:
		return buildJoin(n, env)
	case *plan.SetOp:
		left, right, err := buildPair(n.Left, n.Right, env)
		if err != nil {
			return nil, err
		}
		return ops.NewSetOp(left, right, n.Kind, n.All, n.Schema(), env), nil
	case *plan.Values:
		return ops.NewValues(n.Rows, n.Schema(), env), nil
	case *plan.RecursiveCTE:
		return buildRecursiveCTE(n, env) // recursive.go
	case *plan.WorkingTable:
		return ops.NewWorkingTable(n.ID, n.Schema()), nil
	case *plan.Range:
		return ops.NewRange(n, env), nil // exec/ops/range.go
	case *plan.Unnest:
		in, err := Build(n.Input, env)
		if err != nil {
			return nil, err
		}
		return ops.NewUnnest(in, n, env), nil // exec/ops/unnest.go
	case *plan.Insert, *plan.Delete, *plan.Update, *plan.CreateTable:
		return buildWrite(n, env)
	case *plan.IndexDDL:
		return ops.NewIndexDDL(n, env), nil // exec/ops/index_ddl.go
	case nil:
		return nil, dberr.New(dberr.Internal, "build: nil plan node")
	}
	return nil, dberr.NotSupported(fmt.Sprintf("plan node %T", n))
}

// buildJoin builds a hash join when the join has equi keys, a nested-loop join otherwise.
func buildJoin(j *plan.Join, env exec.Env) (exec.Operator, error) {
	if op, ok, err := buildParallelJoin(j, env); ok || err != nil { // parallel_join.go
		return op, err
	}
	left, right, err := buildPair(j.Left, j.Right, env)
	if err != nil {
		return nil, err
	}
	spec := ops.JoinSpec{Type: j.Type, LeftKeys: j.LeftKeys, RightKeys: j.RightKeys, Cond: j.Cond, Schema: j.Schema()}
	if len(j.LeftKeys) == 0 {
		return ops.NewNestedLoopJoin(left, right, spec, env), nil
	}
	h := ops.NewHashJoin(left, right, spec, env)
	h.SetRuntimeFilters(joinFilters(j, env)) // runtime_filter.go
	h.SetProbeFirst(probeFirst(j, env))
	return h, nil
}

// buildPair builds the two inputs of a binary node; on error nothing is left open.
func buildPair(l, r plan.Node, env exec.Env) (exec.Operator, exec.Operator, error) {
	left, err := Build(l, env)
	if err != nil {
		return nil, nil, err
	}
	right, err := Build(r, env)
	if err != nil {
		if cerr := left.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, nil, err
	}
	return left, right, nil
}
