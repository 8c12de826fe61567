package build

import (
	"sync"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// Run-time join filters (ops.RuntimeFilter): a hash join that discards its unmatched probe
// rows (inner, semi and right joins building on the right input; semi, anti and left joins
// building on the left one, hash_join_flip.go) publishes a summary of one integer-like
// build key once built, and the scan its probe key column comes from (through filters,
// projections of column references and the row-preserving sides of joins) drops the rows
// that cannot match before filtering and probing them. Which join feeds which scan is
// decided once per plan (planRuntimeFilters), when Build is entered at the root of a tree,
// and carried in the env (exec.Env.BuildState): the joins and scans built below look
// themselves up by plan node. Correctness never depends on the filter: unpublished or
// disabled, it keeps every row.

// rfMaxBuildRows is the largest estimated build side a filter is made for.
const rfMaxBuildRows = 1 << 23

// runtimeFiltersOn switches the filters off for tests comparing with the general path.
var runtimeFiltersOn = true

// rfPlan is the run-time filters of one plan being built.
type rfPlan struct {
	joins map[*plan.Join]rfPair
	scans map[*plan.Scan][]rfAttach
	mu    sync.Mutex
	built map[*plan.Scan]bool // scans attached to operators
	// carried are the joins whose right input has filters carried from their left (carry):
	// they read a probe batch before building, so that those filters are published first.
	carried map[*plan.Join]bool
}

func newRFPlan() *rfPlan {
	return &rfPlan{joins: map[*plan.Join]rfPair{}, scans: map[*plan.Scan][]rfAttach{}, built: map[*plan.Scan]bool{},
		carried: map[*plan.Join]bool{}}
}

// rfPair is what one join publishes: onLeft when it builds on its right input, onRight
// when it builds on its left input.
type rfPair struct{ onLeft, onRight *ops.RuntimeFilter }

// rfAttach is one filter a scan applies to its output column col.
type rfAttach struct {
	f   *ops.RuntimeFilter
	col int
}

// withRuntimeFilters returns env carrying the filters of the tree n when env carries none
// yet (the root of a Build): every Build below it, the workers' copies included, finds
// them in its env. A recursive CTE's step, rebuilt every round from the env its operator
// kept, finds the root's plan, which has no filters for it.
// The env also carries the tree's shared subplans (shared.go).
func withRuntimeFilters(n plan.Node, env exec.Env) exec.Env {
	if env.BuildState == nil {
		env.BuildState = &buildState{rf: planRuntimeFilters(n), shared: planShared(n)}
	}
	return env
}

// lookupRuntimeFilters returns the filters of the tree being built, or nil.
func lookupRuntimeFilters(env exec.Env) *rfPlan {
	if st, _ := env.BuildState.(*buildState); st != nil {
		return st.rf
	}
	return nil
}

// planRuntimeFilters makes a filter for every eligible join of n (a recursive CTE's plan
// gets none: its step is rebuilt every round).
func planRuntimeFilters(n plan.Node) *rfPlan {
	p := newRFPlan()
	est := plan.NewEstimator()
	var walk func(n plan.Node) bool
	walk = func(n plan.Node) bool {
		switch n.(type) {
		case nil:
			return true // Build reports it
		case *plan.RecursiveCTE:
			return false
		}
		for _, c := range n.Children() {
			if !walk(c) {
				return false
			}
		}
		if j, ok := n.(*plan.Join); ok {
			p.add(j, est)
		}
		return true
	}
	if !runtimeFiltersOn || !walk(n) {
		return newRFPlan()
	}
	return p
}

// add plans the filters of join j: on its left input's scan when it discards unmatched
// left rows and builds on its right input, on its right input's scan when it may build on
// its left input (small semi and anti joins, flipped left joins).
func (p *rfPlan) add(j *plan.Join, est *plan.Estimator) {
	if len(j.LeftKeys) == 0 {
		return
	}
	if j.Type == plan.InnerJoin || j.Type == plan.SemiJoin {
		p.carry(j) // before j's own filters are attached
	}
	var pair rfPair
	switch j.Type {
	case plan.InnerJoin, plan.SemiJoin, plan.RightJoin:
		if !flipJoin(j) && est.Rows(j.Right) <= rfMaxBuildRows {
			pair.onLeft = p.attach(j.LeftKeys, j.Left)
		}
	}
	switch j.Type {
	case plan.SemiJoin, plan.AntiJoin:
		if est.Rows(j.Left) <= float64(flipRows) {
			pair.onRight = p.attach(j.RightKeys, j.Right)
		}
	case plan.LeftJoin:
		if flipJoin(j) {
			pair.onRight = p.attach(j.RightKeys, j.Right)
		}
	}
	if pair != (rfPair{}) {
		p.joins[j] = pair
	}
}

// carry attaches to the scans of an inner or semi join's right input the filters already
// attached to the scan its left key comes from (TPC-H q09: the filter of part's keys on
// lineitem.l_partkey also narrows partsupp, joined on l_partkey = ps_partkey). Those filters
// belong to inner and semi joins on the left key's path (rfTrace passes no other join's
// build side), so every row reaching j has a left key the filter keeps, and a right row
// the filter drops could not have matched. The filter is published once, by its own join;
// a scan built before that keeps every row.
func (p *rfPlan) carry(j *plan.Join) {
	for k, key := range j.LeftKeys {
		lref, ok := key.(*plan.ColumnRef)
		rref, rok := j.RightKeys[k].(*plan.ColumnRef)
		if !ok || !rok || !rfKeyType(lref) || !rfKeyType(rref) {
			continue
		}
		ls, lc := rfTrace(j.Left, lref.Index)
		rs, rc := rfTrace(j.Right, rref.Index)
		if ls == nil || rs == nil || ls == rs {
			continue
		}
		for _, a := range p.scans[ls] {
			if a.col == lc {
				p.scans[rs] = append(p.scans[rs], rfAttach{f: a.f, col: rc})
				p.carried[j] = true
			}
		}
	}
}

// attach makes a filter for the first of keys (over probe's output) that is an
// integer-like column read from a scan, and attaches it to that scan; nil if none is.
func (p *rfPlan) attach(keys []plan.Expr, probe plan.Node) *ops.RuntimeFilter {
	for k, key := range keys {
		ref, ok := key.(*plan.ColumnRef)
		if !ok || !rfKeyType(ref) {
			continue
		}
		scan, col := rfTrace(probe, ref.Index)
		if scan == nil {
			continue
		}
		f := ops.NewRuntimeFilter(k)
		p.scans[scan] = append(p.scans[scan], rfAttach{f: f, col: col})
		return f
	}
	return nil
}

// rfKeyType reports whether a key column can be summarized (integer-like types).
func rfKeyType(ref *plan.ColumnRef) bool {
	return ops.FlatKeyType(ref.DataType)
}

// rfTrace follows column col of n's output down to the scan it is read from, through
// filters, projections of column references and the sides of joins whose output rows
// carry the input row's value unchanged (the left side of inner, left, semi, anti and
// mark joins, the right side of inner joins); it returns nil when col is computed or
// comes through another node, or the scan has a pushed limit.
func rfTrace(n plan.Node, col int) (*plan.Scan, int) {
	for {
		switch m := n.(type) {
		case *plan.Scan:
			if m.Limit >= 0 {
				return nil, 0
			}
			return m, col
		case *plan.Filter:
			n = m.Input
		case *plan.Project:
			ref, ok := m.Exprs[col].(*plan.ColumnRef)
			if !ok {
				return nil, 0
			}
			n, col = m.Input, ref.Index
		case *plan.Join:
			nl := m.Left.Schema().NumFields()
			switch {
			case col < nl && m.Type != plan.RightJoin && m.Type != plan.FullJoin:
				n = m.Left
			case col >= nl && (m.Type == plan.InnerJoin || m.Type == plan.CrossJoin):
				n, col = m.Right, col-nl
			default:
				return nil, 0
			}
		default:
			return nil, 0
		}
	}
}

// joinFilters returns the filters join j publishes when it builds on its right input
// (onLeft) and on its left input (onRight); nil when none.
func joinFilters(j *plan.Join, env exec.Env) (onLeft, onRight *ops.RuntimeFilter) {
	if p := lookupRuntimeFilters(env); p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		pair := p.joins[j]
		return pair.onLeft, pair.onRight
	}
	return nil, nil
}

// probeFirst reports whether join j's build side has filters carried from its probe side
// (rfPlan.carry): the join then reads a probe batch before it builds.
func probeFirst(j *plan.Join, env exec.Env) bool {
	if p := lookupRuntimeFilters(env); p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.carried[j]
	}
	return false
}

// attachScanFilters attaches the filters planned for scan n to its operators (one scan, or
// the workers' scans of one parallel pipeline). A plan node built twice (a subtree shared
// by two parents) disables its filters: only one of the copies feeds the join.
func attachScanFilters(n *plan.Scan, env exec.Env, scans ...*ops.Scan) {
	p := lookupRuntimeFilters(env)
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	again := p.built[n]
	p.built[n] = true
	for _, a := range p.scans[n] {
		if again {
			a.f.Disable()
		}
		for _, s := range scans {
			s.AddRuntimeFilter(a.f, a.col)
		}
	}
}
