package optimize

import (
	"slices"

	"github.com/flightd/flightd/planner/plan"
)

// pruneColumns pushes projections down: each node keeps only the columns its parent
// needs, and scans read only those (plus what their own filter needs). The root keeps all
// its outputs.
func pruneColumns(n plan.Node) plan.Node {
	need := make([]bool, len(n.Schema().Fields()))
	for i := range need {
		need[i] = true
	}
	out, _ := prune(n, need)
	return out
}

// mapping maps a node's old output positions to new ones (-1: dropped).
type mapping []int

func (m mapping) rewrite(e plan.Expr) plan.Expr {
	return plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
		out := *c
		out.Index = m[c.Index]
		return &out
	})
}

// mark sets need[i] for every column e references.
func mark(need []bool, es ...plan.Expr) {
	for _, e := range es {
		if e != nil {
			plan.Columns(e, func(c *plan.ColumnRef) { need[c.Index] = true })
		}
	}
}

func inputNeed(n plan.Node) []bool {
	return make([]bool, len(n.Children()[0].Schema().Fields()))
}

// prune rebuilds n producing (at least) the outputs marked in need.
func prune(n plan.Node, need []bool) (plan.Node, mapping) {
	switch n := n.(type) {
	case *plan.Scan:
		return pruneScan(n, need)
	case *plan.Filter:
		cn := append([]bool(nil), need...)
		mark(cn, n.Cond)
		in, m := prune(n.Input, cn)
		return &plan.Filter{Input: in, Cond: m.rewrite(n.Cond)}, m
	case *plan.Sort:
		cn := append([]bool(nil), need...)
		for _, k := range n.Keys {
			mark(cn, k.Expr)
		}
		in, m := prune(n.Input, cn)
		keys := make([]plan.SortKey, len(n.Keys))
		for i, k := range n.Keys {
			keys[i] = plan.SortKey{Expr: m.rewrite(k.Expr), Descending: k.Descending, NullsFirst: k.NullsFirst}
		}
		return &plan.Sort{Input: in, Keys: keys}, m
	case *plan.Limit:
		in, m := prune(n.Input, need)
		return &plan.Limit{Input: in, Offset: n.Offset, Count: n.Count}, m
	case *plan.Project:
		return pruneProject(n, need)
	case *plan.Aggregate:
		return pruneAggregate(n)
	case *plan.Join:
		return pruneJoin(n, need)
	case *plan.Window:
		return pruneWindow(n, need)
	case *plan.Unnest:
		return pruneUnnest(n, need)
	case *plan.SetOp:
		// Every column takes part in the set comparison: keep them all.
		all := func(k plan.Node) []bool {
			b := make([]bool, k.Schema().NumFields())
			for i := range b {
				b[i] = true
			}
			return b
		}
		l, _ := prune(n.Left, all(n.Left))
		r, _ := prune(n.Right, all(n.Right))
		return plan.NewSetOp(l, r, n.Kind, n.All), identity(n.Schema().NumFields())
	}
	return n, identity(len(n.Schema().Fields()))
}

func identity(k int) mapping {
	m := make(mapping, k)
	for i := range m {
		m[i] = i
	}
	return m
}

func pruneScan(s *plan.Scan, need []bool) (plan.Node, mapping) {
	keep := append([]bool(nil), need...)
	mark(keep, s.Filter)
	var cols []int
	m := make(mapping, len(keep))
	for i, c := range s.Columns {
		m[i] = -1
		if keep[i] {
			m[i] = len(cols)
			cols = append(cols, c)
		}
	}
	// The hidden row columns follow (_rowid, then _rowaddr); each stays only when needed.
	rowID := s.RowID && keep[len(s.Columns)]
	rowAddr := s.RowAddr && keep[len(keep)-1]
	next := len(cols)
	for i := len(s.Columns); i < len(keep); i++ {
		m[i] = -1
		if keep[i] {
			m[i] = next
			next++
		}
	}
	out := plan.NewRowScan(s.Table, cols, rowID, rowAddr)
	out.Limit = s.Limit
	if s.Filter != nil {
		out.Filter = m.rewrite(s.Filter)
	}
	return out, m
}

func pruneProject(p *plan.Project, need []bool) (plan.Node, mapping) {
	cn := inputNeed(p)
	m := make(mapping, len(p.Exprs))
	var kept []int
	for i, e := range p.Exprs {
		m[i] = -1
		if need[i] {
			m[i] = len(kept)
			kept = append(kept, i)
			mark(cn, e)
		}
	}
	in, cm := prune(p.Input, cn)
	exprs := make([]plan.Expr, len(kept))
	names := make([]string, len(kept))
	for j, i := range kept {
		exprs[j] = cm.rewrite(p.Exprs[i])
		names[j] = p.Names[i]
	}
	return plan.NewProject(in, exprs, names), m
}

// pruneAggregate keeps every group key and aggregate (dropping an unused aggregate is a
// later rule) and prunes the input to what they read.
func pruneAggregate(a *plan.Aggregate) (plan.Node, mapping) {
	cn := inputNeed(a)
	mark(cn, a.GroupBy...)
	for _, c := range a.Aggs {
		mark(cn, c.Args...)
		mark(cn, c.Filter)
	}
	in, cm := prune(a.Input, cn)
	groups := make([]plan.Expr, len(a.GroupBy))
	for i, g := range a.GroupBy {
		groups[i] = cm.rewrite(g)
	}
	aggs := make([]plan.AggCall, len(a.Aggs))
	for i, c := range a.Aggs {
		c.Args = append([]plan.Expr(nil), c.Args...)
		for j, x := range c.Args {
			c.Args[j] = cm.rewrite(x)
		}
		if c.Filter != nil {
			c.Filter = cm.rewrite(c.Filter)
		}
		aggs[i] = c
	}
	return plan.NewAggregate(in, groups, a.Names, aggs), identity(len(a.Schema().Fields()))
}

// pruneJoin keeps the columns the parent needs plus those the keys and condition read,
// on each side; semi and anti joins need only the keys and condition from the right.
func pruneJoin(j *plan.Join, need []bool) (plan.Node, mapping) {
	nleft := j.Left.Schema().NumFields()
	nright := j.Right.Schema().NumFields()
	ln := make([]bool, nleft)
	rn := make([]bool, nright)
	copy(ln, need[:nleft])
	if j.Type != plan.SemiJoin && j.Type != plan.AntiJoin && j.Type != plan.MarkJoin {
		copy(rn, need[nleft:nleft+nright])
	}
	mark(ln, j.LeftKeys...)
	mark(rn, j.RightKeys...)
	if j.Cond != nil {
		both := append(append([]bool{}, ln...), rn...)
		mark(both, j.Cond)
		copy(ln, both[:nleft])
		copy(rn, both[nleft:])
	}
	l, lm := narrow(prune(j.Left, ln))(ln)
	r, rm := narrow(prune(j.Right, rn))(rn)
	newLeft := l.Schema().NumFields()
	// The condition reads left columns then right ones.
	cm := make(mapping, nleft+nright)
	copy(cm, lm)
	for i, x := range rm {
		cm[nleft+i] = -1
		if x >= 0 {
			cm[nleft+i] = newLeft + x
		}
	}
	lk := make([]plan.Expr, len(j.LeftKeys))
	rk := make([]plan.Expr, len(j.RightKeys))
	for i := range lk {
		lk[i], rk[i] = lm.rewrite(j.LeftKeys[i]), rm.rewrite(j.RightKeys[i])
	}
	var cond plan.Expr
	if j.Cond != nil {
		cond = cm.rewrite(j.Cond)
	}
	out := plan.NewJoin(l, r, j.Type, lk, rk, cond)
	// The output mapping: left columns, then right columns or the mark column.
	m := make(mapping, len(j.Schema().Fields()))
	copy(m, lm)
	switch j.Type {
	case plan.SemiJoin, plan.AntiJoin:
	case plan.MarkJoin:
		m[nleft] = newLeft
	default:
		copy(m[nleft:], cm[nleft:])
	}
	return out, m
}

// pruneWindow keeps every window function and the input columns the parent or the
// functions read.
func pruneWindow(w *plan.Window, need []bool) (plan.Node, mapping) {
	nin := w.Input.Schema().NumFields()
	cn := make([]bool, nin)
	copy(cn, need[:nin])
	for _, f := range w.Funcs {
		mark(cn, f.Args...)
		mark(cn, f.PartitionBy...)
		mark(cn, f.Filter)
		for _, k := range f.OrderBy {
			mark(cn, k.Expr)
		}
		if f.Frame != nil {
			mark(cn, f.Frame.Start.Offset, f.Frame.End.Offset) // per-row offsets
		}
	}
	in, cm := prune(w.Input, cn)
	funcs := make([]plan.WindowFunc, len(w.Funcs))
	for i, f := range w.Funcs {
		f.Args = rewriteAll(cm, f.Args)
		f.PartitionBy = rewriteAll(cm, f.PartitionBy)
		if f.Filter != nil {
			f.Filter = cm.rewrite(f.Filter)
		}
		keys := make([]plan.SortKey, len(f.OrderBy))
		for j, k := range f.OrderBy {
			keys[j] = plan.SortKey{Expr: cm.rewrite(k.Expr), Descending: k.Descending, NullsFirst: k.NullsFirst}
		}
		f.OrderBy = keys
		if f.Frame != nil {
			fr := *f.Frame
			if fr.Start.Offset != nil {
				fr.Start.Offset = cm.rewrite(fr.Start.Offset)
			}
			if fr.End.Offset != nil {
				fr.End.Offset = cm.rewrite(fr.End.Offset)
			}
			f.Frame = &fr
		}
		funcs[i] = f
	}
	out := plan.NewWindow(in, funcs)
	m := make(mapping, len(w.Schema().Fields()))
	copy(m, cm)
	width := in.Schema().NumFields()
	for i := range w.Funcs {
		m[nin+i] = width + i
	}
	return out, m
}

func rewriteAll(m mapping, es []plan.Expr) []plan.Expr {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		out[i] = m.rewrite(e)
	}
	return out
}

// narrow drops, with a Project, the columns a pruned join input n (mapped by m) outputs
// though the join does not need them: when n is a scan, those it reads only for its filter
// (TPC-H q13's o_comment), which the join would otherwise copy into its hash table or its
// output. It is curried so that it takes prune's two results directly.
func narrow(n plan.Node, m mapping) func(need []bool) (plan.Node, mapping) {
	return func(need []bool) (plan.Node, mapping) {
		if _, ok := n.(*plan.Scan); !ok {
			return n, m
		}
		width := n.Schema().NumFields()
		used := make([]bool, width)
		for i, x := range m {
			if x >= 0 && need[i] {
				used[x] = true
			}
		}
		if !slices.Contains(used, false) {
			return n, m
		}
		var exprs []plan.Expr
		var names []string
		pos := make([]int, width)
		for i, f := range n.Schema().Fields() {
			pos[i] = -1
			if used[i] {
				pos[i] = len(exprs)
				exprs = append(exprs, &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable})
				names = append(names, f.Name)
			}
		}
		out := make(mapping, len(m))
		for i, x := range m {
			out[i] = -1
			if x >= 0 {
				out[i] = pos[x]
			}
		}
		return plan.NewProject(n, exprs, names), out
	}
}
