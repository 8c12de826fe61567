package optimize

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

// reorderJoins picks the order of every region of inner and cross joins from cardinality
// estimates (plan.Estimator: manifest row counts, filter selectivity heuristics, equi-join
// sizes from key domains). A region is a maximal tree of inner/cross joins; its leaves are
// whatever sits below (scans, projections, aggregates, outer/semi/anti/mark joins: never
// reordered across, though their own inputs are searched for regions). The region's join
// conditions form a join graph; regions of up to dpMaxRelations leaves are ordered by
// exhaustive dynamic programming over connected subsets (bushy trees, no cross products
// unless the graph is disconnected), larger ones greedily. Each join puts its smaller
// estimated input on the right, the hash join's build side (exec/ops.HashJoin). The cost
// of a plan is the sum of its joins' output and build-side rows; the region is replaced
// only when the new order is estimated cheaper than the FROM order, so plans without
// statistics keep their shape. A Project on top restores the region's column order.
//
// It runs after pushFilters (which turns cross joins plus WHERE equalities into keyed
// inner joins and pushes single-table conjuncts into the scans whose sizes are estimated
// here) and before pruneColumns (which trims the columns of the reordered joins).
func reorderJoins(n plan.Node) plan.Node {
	return reorderNode(n, plan.NewEstimator())
}

// dpMaxRelations is the largest region ordered exhaustively; larger ones go greedy.
const dpMaxRelations = 10

// maxRelations bounds a region (sets are uint64 bit masks); larger ones keep their order.
const maxRelations = 64

func reorderNode(n plan.Node, est *plan.Estimator) plan.Node {
	if j, ok := n.(*plan.Join); ok && innerLike(j) {
		return reorderRegion(j, est)
	}
	kids := n.Children()
	if len(kids) == 0 {
		return n
	}
	newKids := make([]plan.Node, len(kids))
	changed := false
	for i, k := range kids {
		newKids[i] = reorderNode(k, est)
		changed = changed || newKids[i] != k
	}
	if !changed {
		return n
	}
	return withChildren(n, newKids)
}

// innerLike reports whether j may be reordered with the joins around it.
func innerLike(j *plan.Join) bool {
	return j.Type == plan.InnerJoin || j.Type == plan.CrossJoin
}

// region is a flattened tree of inner joins: its leaves in FROM order and its conditions
// over the concatenation of the leaves' columns (the region's output).
type region struct {
	leaves  []plan.Node
	offsets []int // first column of each leaf in the region's output
	colLeaf []int // leaf of each column of the region's output
	preds   []pred
	est     *plan.Estimator
}

// pred is one conjunct of the region's conditions, over the region's output columns.
type pred struct {
	expr plan.Expr
	rels uint64 // leaves it reads
	// An equality of two expressions each reading leaves on its own (lrels, rrels
	// disjoint and non-empty) can be a hash key between sets holding them.
	equi         bool
	lrels, rrels uint64
	class        int // equivalence class of both sides, -1 when none (see classes)
}

func reorderRegion(j *plan.Join, est *plan.Estimator) plan.Node {
	r := &region{est: est}
	r.collect(j, 0)
	if len(r.leaves) > maxRelations {
		return rebuildOriginal(j, r.leaves)
	}
	for i := range r.leaves {
		for c := 0; c < r.leaves[i].Schema().NumFields(); c++ {
			r.colLeaf = append(r.colLeaf, i)
		}
	}
	for i := range r.preds {
		r.classify(&r.preds[i])
	}
	g := newJoinGraph(r)
	orig := g.costOf(j, 0)
	best := g.order()
	if best == nil || best.cost >= orig*(1-1e-9) {
		return rebuildOriginal(j, r.leaves)
	}
	return r.build(g, best)
}

// collect flattens the inner joins of j (whose output starts at column offset of the
// region), reordering the leaves' own subtrees on the way.
func (r *region) collect(n plan.Node, offset int) {
	j, ok := n.(*plan.Join)
	if !ok || !innerLike(j) {
		r.leaves = append(r.leaves, reorderNode(n, r.est))
		r.offsets = append(r.offsets, offset)
		return
	}
	nl := j.Left.Schema().NumFields()
	r.collect(j.Left, offset)
	r.collect(j.Right, offset+nl)
	for i := range j.LeftKeys {
		l, rk := plan.Shift(j.LeftKeys[i], offset), plan.Shift(j.RightKeys[i], offset+nl)
		r.preds = append(r.preds, pred{expr: equal(l, rk)})
	}
	for _, c := range plan.SplitConjuncts(j.Cond) {
		r.preds = append(r.preds, pred{expr: plan.Shift(c, offset)})
	}
}

// equal builds the condition l = r.
func equal(l, r plan.Expr) plan.Expr {
	return &plan.Call{Func: "equal", Args: []plan.Expr{l, r}, DataType: arrow.FixedWidthTypes.Boolean, Null: l.Nullable() || r.Nullable()}
}

// relsOf returns the leaves e reads.
func (r *region) relsOf(e plan.Expr) uint64 {
	var s uint64
	plan.Columns(e, func(c *plan.ColumnRef) {
		if c.Index >= 0 && c.Index < len(r.colLeaf) {
			s |= 1 << r.colLeaf[c.Index]
		}
	})
	return s
}

// classify fills p's leaf sets and whether it is an equi-join edge.
func (r *region) classify(p *pred) {
	p.rels, p.class = r.relsOf(p.expr), -1
	c, ok := p.expr.(*plan.Call)
	if !ok || c.Func != "equal" || len(c.Args) != 2 {
		return
	}
	l, rr := r.relsOf(c.Args[0]), r.relsOf(c.Args[1])
	if l != 0 && rr != 0 && l&rr == 0 {
		p.equi, p.lrels, p.rrels = true, l, rr
	}
}

// rebuildOriginal rebuilds the region rooted at j in its own order over new leaves (the
// leaves' reordered subtrees, in FROM order).
func rebuildOriginal(j *plan.Join, leaves []plan.Node) plan.Node {
	i := 0
	var walk func(n plan.Node) plan.Node
	walk = func(n plan.Node) plan.Node {
		jn, ok := n.(*plan.Join)
		if !ok || !innerLike(jn) {
			out := leaves[i]
			i++
			return out
		}
		l := walk(jn.Left)
		rr := walk(jn.Right)
		if l == jn.Left && rr == jn.Right {
			return jn
		}
		return plan.NewJoin(l, rr, jn.Type, jn.LeftKeys, jn.RightKeys, jn.Cond)
	}
	return walk(j)
}

// built is a subtree of the new order: its node and, for each output column, the region
// column it holds.
type built struct {
	node plan.Node
	set  uint64
	cols []int
}

// build turns the chosen order into joins, each condition on the lowest join holding all
// the leaves it reads, and projects the region's columns back into their original order.
func (r *region) build(g *joinGraph, best *joinTree) plan.Node {
	applied := make([]bool, len(r.preds))
	out := r.buildTree(g, best, applied)
	var rest []plan.Expr // conditions reading no column: on top
	for i, p := range r.preds {
		if !applied[i] {
			rest = append(rest, r.localize(p.expr, out.cols))
		}
	}
	node := wrap(out.node, rest)
	identity := true
	for i, c := range out.cols {
		identity = identity && c == i
	}
	if identity {
		return node
	}
	pos := make([]int, len(out.cols))
	for i, c := range out.cols {
		pos[c] = i
	}
	fields := node.Schema().Fields()
	exprs, names := make([]plan.Expr, len(pos)), make([]string, len(pos))
	for c, p := range pos {
		f := fields[p]
		exprs[c] = &plan.ColumnRef{Index: p, Name: f.Name, DataType: f.Type, Null: f.Nullable}
		names[c] = f.Name
	}
	return plan.NewProject(node, exprs, names)
}

func (r *region) buildTree(g *joinGraph, t *joinTree, applied []bool) built {
	if t.left == nil {
		leaf := bits.TrailingZeros64(t.set)
		cols := make([]int, r.leaves[leaf].Schema().NumFields())
		for i := range cols {
			cols[i] = r.offsets[leaf] + i
		}
		b := built{node: r.leaves[leaf], set: t.set, cols: cols}
		var own []plan.Expr
		for i, p := range r.preds {
			if !applied[i] && p.rels == t.set {
				applied[i] = true
				own = append(own, r.localize(p.expr, cols))
			}
		}
		b.node = wrap(b.node, own)
		return b
	}
	a, c := r.buildTree(g, t.left, applied), r.buildTree(g, t.right, applied)
	if g.rows(a.set) < g.rows(c.set) {
		a, c = c, a // the smaller input is the build side, on the right
	}
	cols := append(append([]int{}, a.cols...), c.cols...)
	var conds []plan.Expr
	for i, p := range r.preds {
		if !applied[i] && p.rels&^t.set == 0 && p.rels&a.set != 0 && p.rels&c.set != 0 {
			applied[i] = true
			conds = append(conds, r.localize(p.expr, cols))
		}
	}
	lk, rk, res := plan.SplitJoinCondition(plan.Conjoin(conds), len(a.cols))
	typ := plan.InnerJoin
	if len(conds) == 0 {
		typ = plan.CrossJoin
	}
	return built{node: plan.NewJoin(a.node, c.node, typ, lk, rk, res), set: t.set, cols: cols}
}

// localize rewrites e from region columns to positions in cols.
func (r *region) localize(e plan.Expr, cols []int) plan.Expr {
	pos := make(map[int]int, len(cols))
	for i, c := range cols {
		pos[c] = i
	}
	return plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
		out := *c
		out.Index = pos[c.Index]
		return &out
	})
}
