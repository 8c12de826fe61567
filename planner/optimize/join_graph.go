package optimize

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// joinGraph is a region's join graph for ordering: leaf sizes, equi-join edges grouped in
// equivalence classes of equal columns, and memoized set sizes.
type joinGraph struct {
	r        *region
	leafRows []float64
	tdom     []float64 // per equivalence class: the smallest domain of its members
	rowsMemo map[uint64]float64
}

// joinTree is one candidate order: a leaf (left == nil) or a join of two disjoint sets.
type joinTree struct {
	set         uint64
	left, right *joinTree
	cost        float64
}

func newJoinGraph(r *region) *joinGraph {
	g := &joinGraph{r: r, rowsMemo: map[uint64]float64{}}
	for i, l := range r.leaves {
		rows := r.est.Rows(l)
		for _, p := range r.preds {
			if p.rels == 1<<i {
				rows *= plan.Selectivity(p.expr)
			}
		}
		g.leafRows = append(g.leafRows, math.Max(1, rows))
	}
	g.buildClasses()
	return g
}

// buildClasses groups equalities between two single-leaf expressions of one type into
// equivalence classes (a.x = b.y and b.y = c.z: one class). A class's domain is the
// smallest domain of its members: a foreign key's values lie in the key it references, the
// smaller table, and a key's domain is its table's row count.
func (g *joinGraph) buildClasses() {
	r := g.r
	parent := map[string]string{}
	find := func(k string) string {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	var members []string
	add := func(k string) {
		if _, ok := parent[k]; !ok {
			parent[k] = k
			members = append(members, k)
		}
	}
	for _, p := range r.preds {
		if l, rr, ok := g.classEdge(p); ok {
			add(l.String())
			add(rr.String())
			parent[find(l.String())] = find(rr.String())
		}
	}
	ids := map[string]int{}
	for _, m := range members {
		if root := find(m); ids[root] == 0 {
			ids[root] = len(ids) + 1
			g.tdom = append(g.tdom, math.Inf(1))
		}
	}
	for i := range r.preds {
		p := &r.preds[i]
		l, rr, ok := g.classEdge(*p)
		if !ok {
			continue
		}
		p.class = ids[find(l.String())] - 1
		for _, x := range []plan.Expr{l, rr} {
			leaf := bits.TrailingZeros64(r.relsOf(x))
			d := r.est.ExprDomain(r.leaves[leaf], plan.Shift(x, -r.offsets[leaf]))
			g.tdom[p.class] = math.Min(g.tdom[p.class], math.Max(1, d))
		}
	}
}

// classEdge returns the two sides of an equality between single-leaf expressions of the
// same type.
func (g *joinGraph) classEdge(p pred) (l, r plan.Expr, ok bool) {
	if !p.equi || bits.OnesCount64(p.lrels) != 1 || bits.OnesCount64(p.rrels) != 1 {
		return nil, nil, false
	}
	c := p.expr.(*plan.Call)
	if !arrow.TypeEqual(c.Args[0].Type(), c.Args[1].Type()) {
		return nil, nil, false
	}
	return c.Args[0], c.Args[1], true
}

// rows estimates the size of the join of the leaves in set: the product of their sizes,
// divided by a class's domain for every class edge that links two parts not yet linked
// (edges closing a cycle of equal columns add nothing), times the selectivity of every
// other condition reading two or more of the leaves. The estimate does not depend on the
// order the set is joined in.
func (g *joinGraph) rows(set uint64) float64 {
	if r, ok := g.rowsMemo[set]; ok {
		return r
	}
	rows := 1.0
	for s := set; s != 0; s &= s - 1 {
		rows *= g.leafRows[bits.TrailingZeros64(s)]
	}
	parent := make([]int, len(g.leafRows))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for _, p := range g.r.preds {
		if p.rels&^set != 0 || bits.OnesCount64(p.rels) < 2 {
			continue
		}
		if p.class < 0 {
			rows *= plan.Selectivity(p.expr)
			continue
		}
		a, b := find(bits.TrailingZeros64(p.lrels)), find(bits.TrailingZeros64(p.rrels))
		if a != b {
			parent[a] = b
			rows /= g.tdom[p.class]
		}
	}
	rows = math.Max(1, rows)
	g.rowsMemo[set] = rows
	return rows
}

// joinCost is the cost of joining a and b: the output rows plus the build side's rows
// plus the probe side's rows weighted by probeWeight of the build side.
func (g *joinGraph) joinCost(a, b uint64) float64 {
	ra, rb := g.rows(a), g.rows(b)
	build, probe := math.Min(ra, rb), math.Max(ra, rb)
	return g.rows(a|b) + build + probe*probeWeight(build)
}

// cacheRows is the largest build side whose hash table is taken to stay in the CPU's
// caches (a flat index of 2^17 slots of 12 bytes, about 1.5 MiB).
const cacheRows = 1 << 16

// probeWeight is the cost of one probe into a hash table over build rows, relative to
// producing one output row or inserting one build row: a lookup in a table that fits in
// the caches is cheap (0.05), one in a larger table costs a cache miss (0.5; an insert
// costs more, as it also hashes and stores the row). Without it, two orders that
// produce and build as many rows cost the same although one streams the fact table
// through a small dimension table and the other through a table of a million rows
// (TPC-H q21: lineitem probing orders rather than the suppliers of one nation first).
func probeWeight(build float64) float64 {
	if build <= cacheRows {
		return 0.05
	}
	return 0.5
}

// connected reports whether an equality can serve as a hash key between sets a and b.
func (g *joinGraph) connected(a, b uint64) bool {
	for _, p := range g.r.preds {
		if p.equi && (p.lrels&^a == 0 && p.rrels&^b == 0 || p.lrels&^b == 0 && p.rrels&^a == 0) {
			return true
		}
	}
	return false
}

// costOf is the cost of the region's own (FROM) order; n is a node of the region whose
// first leaf is leaf number *next. Its build sides are where the plan puts them.
func (g *joinGraph) costOf(n plan.Node, next int) float64 {
	_, cost := g.origCost(n, &next)
	return cost
}

func (g *joinGraph) origCost(n plan.Node, next *int) (uint64, float64) {
	j, ok := n.(*plan.Join)
	if !ok || !innerLike(j) {
		set := uint64(1) << *next
		*next++
		return set, 0
	}
	ls, lc := g.origCost(j.Left, next)
	rs, rc := g.origCost(j.Right, next)
	build := g.rows(rs)
	return ls | rs, lc + rc + g.rows(ls|rs) + build + g.rows(ls)*probeWeight(build)
}

// order returns the cheapest order found: exhaustive over connected subsets for small
// regions, greedy otherwise or when the graph needs cross products.
func (g *joinGraph) order() *joinTree {
	if len(g.leafRows) <= dpMaxRelations {
		if t := g.dp(); t != nil {
			return t
		}
	}
	return g.greedy()
}

// dp enumerates every split of every connected set into two connected sets joined by an
// equality (DPsub: sets in increasing order, so a set's subsets come first); nil when the
// whole region is not connected.
func (g *joinGraph) dp() *joinTree {
	n := len(g.leafRows)
	full := uint64(1)<<n - 1
	best := make([]*joinTree, full+1)
	for i := range n {
		best[1<<i] = &joinTree{set: 1 << i}
	}
	for s := uint64(1); s <= full; s++ {
		if bits.OnesCount64(s) < 2 {
			continue
		}
		low := s & -s
		for sub := (s - 1) & s; sub > 0; sub = (sub - 1) & s {
			other := s ^ sub
			if sub&low == 0 || best[sub] == nil || best[other] == nil || !g.connected(sub, other) {
				continue
			}
			c := best[sub].cost + best[other].cost + g.joinCost(sub, other)
			if best[s] == nil || c < best[s].cost {
				best[s] = &joinTree{set: s, left: best[sub], right: best[other], cost: c}
			}
		}
	}
	return best[full]
}

// greedy repeatedly joins the two connected trees with the smallest result (cross
// joining the two smallest-result trees when no two are connected).
func (g *joinGraph) greedy() *joinTree {
	trees := make([]*joinTree, len(g.leafRows))
	for i := range trees {
		trees[i] = &joinTree{set: 1 << i}
	}
	for len(trees) > 1 {
		bi, bj, conn, bestRows := -1, -1, false, math.Inf(1)
		for i := range trees {
			for j := i + 1; j < len(trees); j++ {
				c := g.connected(trees[i].set, trees[j].set)
				rows := g.rows(trees[i].set | trees[j].set)
				if (c && !conn) || (c == conn && rows < bestRows) {
					bi, bj, conn, bestRows = i, j, c, rows
				}
			}
		}
		a, b := trees[bi], trees[bj]
		t := &joinTree{set: a.set | b.set, left: a, right: b, cost: a.cost + b.cost + g.joinCost(a.set, b.set)}
		trees[bi] = t
		trees = append(trees[:bj], trees[bj+1:]...)
	}
	return trees[0]
}
