package build

import (
	"strings"
	"sync"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Shared subplans: an aggregate subtree that occurs more than once in a query with the
// same plan text and types (a CTE referenced twice, TPC-H q15's revenue view; the same
// subquery written twice) runs once into an ops.SharedResult that every occurrence reads.
// Subtrees under a recursive CTE, and those calling a volatile function, are never
// shared. Only aggregates are shared: their results are usually small, and a shared result
// is held in memory until its last reader closes.

// buildState is what exec/build keeps in exec.Env.BuildState for the tree it builds: the
// run-time join filters (runtime_filter.go) and the shared subplans.
type buildState struct {
	rf     *rfPlan
	shared *sharedPlan
}

// sharedPlan holds the keys of the subtrees that occur at least twice, and their runs.
type sharedPlan struct {
	mu   sync.Mutex
	keys map[string]bool
	runs map[string]*ops.SharedResult
}

// sharedSubplansOn switches shared subplans on (tests compare with the general path).
var sharedSubplansOn = true

// volatileCalls are the calls whose value differs between two evaluations.
var volatileCalls = []string{"random(", "uuid(", "gen_random_uuid(", "nextval("}

// planShared finds the aggregate subtrees of n that occur more than once; nil if none.
func planShared(n plan.Node) *sharedPlan {
	counts := map[string]int{}
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		switch n.(type) {
		case nil, *plan.RecursiveCTE:
			return
		}
		if key, ok := sharedKey(n); ok {
			counts[key]++
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	var p *sharedPlan
	for key, c := range counts {
		if c < 2 {
			continue
		}
		if p == nil {
			p = &sharedPlan{keys: map[string]bool{}, runs: map[string]*ops.SharedResult{}}
		}
		p.keys[key] = true
	}
	return p
}

// sharedKey is the identity of an aggregate subtree that may be shared: its plan text and
// the schema of every node in it.
func sharedKey(n plan.Node) (string, bool) {
	if _, ok := n.(*plan.Aggregate); !ok {
		return "", false
	}
	text := plan.Explain(n)
	for _, v := range volatileCalls {
		if strings.Contains(text, v) {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteString(text)
	ok := true
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		switch n.(type) {
		case *plan.WorkingTable, *plan.RecursiveCTE:
			ok = false
			return
		}
		b.WriteString(n.Schema().String())
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return b.String(), ok
}

// lookupShared returns the shared subplans of the tree being built, or nil.
func lookupShared(env exec.Env) *sharedPlan {
	if st, _ := env.BuildState.(*buildState); st != nil {
		return st.shared
	}
	return nil
}

// buildSharedReader returns a reader of n's shared run when n is a shared subtree; the
// first occurrence builds the run (with run-time filters of its own: a filter of the
// enclosing tree would leave out rows another occurrence needs).
func buildSharedReader(n plan.Node, env exec.Env) (exec.Operator, bool, error) {
	p := lookupShared(env)
	if p == nil || !sharedSubplansOn {
		return nil, false, nil
	}
	key, ok := sharedKey(n)
	if !ok || !p.keys[key] {
		return nil, false, nil
	}
	p.mu.Lock()
	run := p.runs[key]
	p.mu.Unlock()
	if run != nil {
		if r, ok := run.Reader(); ok {
			return r, true, nil
		}
	}
	// A first occurrence, or one after every reader of the last run closed (a recursive
	// CTE's step is rebuilt every round): a new run. The lock is not held while building,
	// as the subtree may hold shared subtrees of its own.
	inner := env
	inner.BuildState = &buildState{rf: planRuntimeFilters(n), shared: p}
	op, err := buildNode(n, inner)
	if err != nil {
		return nil, true, err
	}
	run = ops.NewSharedResult(op, env)
	r, _ := run.Reader() // a new run is open
	p.mu.Lock()
	p.runs[key] = run
	p.mu.Unlock()
	return r, true, nil
}
