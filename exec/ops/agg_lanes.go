package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/planner/plan"
)

// Decimal sums on int64 lanes: the arguments of sum and avg over decimals (TPC-H Q1's
// l_extendedprice * (1 - l_discount) * (1 + l_tax)) are computed as plain int64s in steps of
// their scale instead of decimal128 arrays, and summed from there. Per batch, each column's
// largest magnitude bounds every intermediate value (interval arithmetic over the
// expression); the lanes are used only when every bound stays below 2^63 and below the
// planned precision of its node, so no row can overflow, and the results are the ones
// kernel.DecimalArith and the checked narrowing would produce. Otherwise (a NULL in a
// column, a value beyond int64, a bound too large) the batch takes the general path, which
// raises the overflow errors DuckDB raises. Subexpressions shared between aggregates are
// computed once (nodes are keyed by their text); a sum or difference used only as one
// operand of a product (1 - l_discount) is computed inside the product's pass.

// laneKind is what a lane node computes.
type laneKind uint8

const (
	laneColumn laneKind = iota // a decimal column's values
	laneConst                  // a decimal literal
	laneLinear                 // a*ma + b*mb: add and subtract, operands rescaled
	laneMul                    // a*b
)

// laneNode is one compiled subexpression.
type laneNode struct {
	kind   laneKind
	col    int            // laneColumn: the input column
	dt     arrow.DataType // laneColumn: its planned type
	konst  int64          // laneConst: the value, in steps of its scale
	a, b   int            // operand nodes
	ma, mb int64          // laneLinear: the operands' rescaling factors (mb negative to subtract)
	limit  uint64
	// inlined marks a laneLinear whose only use is one laneMul's operand: only its bound is
	// computed, and the product computes its values on the fly (kernel.LaneMulLinear)
	inlined bool
}

// laneProgram is the lane form of an aggregate's decimal sum and avg arguments, with the
// current batch's values.
type laneProgram struct {
	nodes []laneNode
	memo  map[string]int
	roots []int // per aggregate: its argument's node; -1 when not on lanes
	all   bool  // every aggregate with an argument is on lanes
	// stars marks count(*) without FILTER (folded from the lanes' row counts);
	// handled, per batch, the aggregates foldLanes folded
	stars, handled []bool
	// per batch: each node's values (nil for constants) and largest magnitude, and its
	// per-group sums over the batch's rows once summed (agg_lanes_sum.go)
	vals   [][]int64
	bound  []uint64
	sums   [][]int64
	summed []bool
	// failed counts the batches that could not use the lanes while none could; past
	// laneGiveUp the program is no longer tried
	failed, used int
}

// laneGiveUp is how many batches may fail the lanes, before any used them, until they are
// abandoned for the rest of the input.
const laneGiveUp = 8

// compileLanes returns the lane program of aggs, or nil when no aggregate qualifies: sum or
// avg, not DISTINCT, of a decimal expression built from decimal columns, decimal literals,
// add, subtract and multiply, each typed as DecimalArith computes it (its planned scale is
// the natural one).
func compileLanes(aggs []plan.AggCall) *laneProgram {
	p := &laneProgram{memo: map[string]int{}, roots: make([]int, len(aggs)), all: true,
		stars: make([]bool, len(aggs)), handled: make([]bool, len(aggs))}
	found := false
	for i, call := range aggs {
		p.roots[i] = -1
		p.stars[i] = (call.Func == "count" || call.Func == "count_star") && len(call.Args) == 0 && call.Filter == nil && !call.Distinct
		if (call.Func == "sum" || call.Func == "avg") && !call.Distinct && len(call.Args) == 1 &&
			call.Args[0].Type().ID() == arrow.DECIMAL128 {
			if root, ok := p.compileRoot(call.Args[0]); ok {
				p.roots[i], found = root, true
				continue
			}
		}
		if len(call.Args) > 0 {
			p.all = false
		}
	}
	if !found {
		return nil
	}
	p.inlineLinear()
	p.vals, p.bound = make([][]int64, len(p.nodes)), make([]uint64, len(p.nodes))
	p.sums, p.summed = make([][]int64, len(p.nodes)), make([]bool, len(p.nodes))
	return p
}

// inlineLinear marks the laneLinear nodes used once, as the operand of a laneMul, and not as
// an aggregate's argument (TPC-H Q1's 1 - l_discount and 1 + l_tax): their values are
// computed inside the product instead of in a pass of their own.
func (p *laneProgram) inlineLinear() {
	uses := make([]int, len(p.nodes))
	for _, n := range p.nodes {
		if n.kind == laneLinear || n.kind == laneMul {
			uses[n.a]++
			uses[n.b]++
		}
	}
	for _, r := range p.roots {
		if r >= 0 {
			uses[r]++
		}
	}
	for _, n := range p.nodes {
		if n.kind != laneMul {
			continue
		}
		for _, k := range [2]int{n.a, n.b} { // one operand at most: the other is read as is
			if p.nodes[k].kind == laneLinear && uses[k] == 1 {
				p.nodes[k].inlined = true
				break
			}
		}
	}
}

// compileRoot compiles an aggregate's argument; on failure it forgets the nodes it added.
func (p *laneProgram) compileRoot(e plan.Expr) (int, bool) {
	mark := len(p.nodes)
	k, ok := p.compile(e)
	if ok && p.nodes[k].kind != laneConst {
		return k, true
	}
	p.nodes = p.nodes[:mark]
	for key, n := range p.memo {
		if n >= mark {
			delete(p.memo, key)
		}
	}
	return 0, false
}

// compile returns the node of e, adding it (and its operands) when new.
func (p *laneProgram) compile(e plan.Expr) (int, bool) {
	key := plan.TypedKey(e)
	if k, ok := p.memo[key]; ok {
		return k, true
	}
	dt, ok := e.Type().(*arrow.Decimal128Type)
	if !ok {
		return 0, false
	}
	var n laneNode
	switch e := e.(type) {
	case *plan.ColumnRef:
		n = laneNode{kind: laneColumn, col: e.Index, dt: e.DataType}
	case *plan.Literal:
		v, ok := e.Value.(*scalar.Decimal128)
		if !ok || !v.IsValid() || !fitsLane(v.Value) {
			return 0, false
		}
		n = laneNode{kind: laneConst, konst: int64(v.Value.LowBits())}
	case *plan.Call:
		if n, ok = p.compileCall(e, dt.Scale); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	n.limit = precisionLimit(dt.Precision)
	p.nodes = append(p.nodes, n)
	p.memo[key] = len(p.nodes) - 1
	return len(p.nodes) - 1, true
}

// compileCall compiles add, subtract or multiply of two decimal operands whose planned result
// scale is scale.
func (p *laneProgram) compileCall(c *plan.Call, scale int32) (laneNode, bool) {
	if len(c.Args) != 2 || (c.Func != "add" && c.Func != "subtract" && c.Func != "multiply") {
		return laneNode{}, false
	}
	ta, ok1 := c.Args[0].Type().(*arrow.Decimal128Type)
	tb, ok2 := c.Args[1].Type().(*arrow.Decimal128Type)
	if !ok1 || !ok2 {
		return laneNode{}, false
	}
	a, ok1 := p.compile(c.Args[0])
	b, ok2 := p.compile(c.Args[1])
	if !ok1 || !ok2 || (p.nodes[a].kind == laneConst && p.nodes[b].kind == laneConst) {
		return laneNode{}, false
	}
	if c.Func == "multiply" {
		return laneNode{kind: laneMul, a: a, b: b}, ta.Scale+tb.Scale == scale
	}
	s := max(ta.Scale, tb.Scale)
	if s != scale || s-ta.Scale > 18 || s-tb.Scale > 18 {
		return laneNode{}, false
	}
	n := laneNode{kind: laneLinear, a: a, b: b, ma: pow10(s - ta.Scale), mb: pow10(s - tb.Scale)}
	if c.Func == "subtract" {
		n.mb = -n.mb
	}
	return n, true
}

// precisionLimit is the magnitude a decimal of the given precision stays below (2^63 when
// that is smaller).
func precisionLimit(precision int32) uint64 {
	if precision > 18 {
		return 1 << 63
	}
	return uint64(pow10(precision))
}

func pow10(n int32) int64 {
	v := int64(1)
	for range n {
		v *= 10
	}
	return v
}

func fitsLane(v decimal128.Num) bool {
	return v.HighBits() == int64(v.LowBits())>>63
}

// eval computes every node over b; false when the batch must take the general path.
func (p *laneProgram) eval(b arrow.RecordBatch) bool {
	if p.failed >= laneGiveUp && p.used == 0 {
		return false
	}
	ok := p.check(b) && p.compute(b)
	if ok {
		p.used++
	} else {
		p.failed++
	}
	return ok
}

// check reports whether every column node's column has its planned type and no NULLs.
func (p *laneProgram) check(b arrow.RecordBatch) bool {
	for _, n := range p.nodes {
		if n.kind != laneColumn {
			continue
		}
		if n.col >= int(b.NumCols()) {
			return false
		}
		col := b.Column(n.col)
		if !arrow.TypeEqual(col.DataType(), n.dt) || col.NullN() != 0 {
			return false
		}
	}
	return true
}

// compute fills each node's values and bound, in order (operands come first).
func (p *laneProgram) compute(b arrow.RecordBatch) bool {
	rows := int(b.NumRows())
	for k, n := range p.nodes {
		var ok bool
		switch n.kind {
		case laneColumn:
			vals := arrow.GetValues[decimal128.Num](b.Column(n.col).Data(), 1)
			p.vals[k], p.bound[k], ok = kernel.DecimalLanes(p.vals[k], vals)
		case laneConst:
			p.vals[k], p.bound[k], ok = nil, absU64(n.konst), true
		case laneLinear:
			ok = p.linear(k, n, rows)
		case laneMul:
			p.bound[k], ok = kernel.LaneMulBound(p.bound[n.a], p.bound[n.b])
			if ok = ok && p.bound[k] < n.limit; ok {
				p.vals[k] = p.mul(p.vals[k], rows, n)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// linear computes node k, a laneLinear.
func (p *laneProgram) linear(k int, n laneNode, rows int) bool {
	ba, ok1 := kernel.LaneMulBound(p.bound[n.a], absU64(n.ma))
	bb, ok2 := kernel.LaneMulBound(p.bound[n.b], absU64(n.mb))
	bound, ok3 := kernel.LaneAddBound(ba, bb)
	if !ok1 || !ok2 || !ok3 || bound >= n.limit {
		return false
	}
	p.bound[k] = bound
	if !n.inlined {
		p.vals[k] = kernel.LaneLinear(p.vals[k], rows, p.lane(n.a), n.ma, p.lane(n.b), n.mb)
	}
	return true
}

// mul computes the values of n, a laneMul, into dst (reused), computing an inlined
// laneLinear operand's values on the fly.
func (p *laneProgram) mul(dst []int64, rows int, n laneNode) []int64 {
	x, l := n.a, n.b
	if p.nodes[x].inlined {
		x, l = l, x
	}
	if lin := p.nodes[l]; lin.inlined {
		return kernel.LaneMulLinear(dst, rows, p.lane(x), p.lane(lin.a), lin.ma, p.lane(lin.b), lin.mb)
	}
	return kernel.LaneMul(dst, rows, p.lane(n.a), p.lane(n.b))
}

// lane returns node k's current values as a kernel operand.
func (p *laneProgram) lane(k int) kernel.Lane {
	if p.nodes[k].kind == laneConst {
		return kernel.Lane{Const: p.nodes[k].konst}
	}
	return kernel.Lane{Vals: p.vals[k]}
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
