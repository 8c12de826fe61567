package plan

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Cardinality estimation for the optimizer's join ordering (planner/optimize
// rules_join_order.go), with DuckDB's kind of heuristics: base row counts come from the
// table's manifest (catalog.Table.Stats), filters multiply them by a fixed selectivity per
// conjunct, and an equi-join of L and R on a key whose values come from a domain of D
// distinct values outputs |L|·|R| / max(ndv(L), ndv(R)), where ndv(X) = min(D, |X|).
// Nothing here reads data: the number of distinct values of a column is unknown, so its
// domain is estimated by the row count of the table it comes from (exact for a key), and
// the two sides of an equality share the smaller domain (a foreign key's values are
// contained in the key it references).

// Selectivities of filter conjuncts, DuckDB-style defaults.
const (
	// SelEquality is the fraction of rows an equality (x = constant, x = y) keeps.
	SelEquality = 0.1
	// SelRange is the fraction of rows a comparison (<, <=, >, >=) keeps.
	SelRange = 0.33
	// SelDefault is the fraction of rows any other condition keeps.
	SelDefault = 0.33
	// DefaultRows stands for a table whose row count is unknown (catalog.Stats.Rows < 0).
	DefaultRows = 1000
)

// Estimator estimates output row counts and column domains of plan nodes, remembering
// what it has computed (plans are immutable, so a node's estimate never changes). The zero
// value is not usable: call NewEstimator.
type Estimator struct {
	rows map[Node]float64
}

// NewEstimator returns an empty estimator.
func NewEstimator() *Estimator { return &Estimator{rows: map[Node]float64{}} }

// Rows estimates how many rows n outputs (at least 1).
func (e *Estimator) Rows(n Node) float64 {
	if r, ok := e.rows[n]; ok {
		return r
	}
	r := math.Max(1, e.rowsOf(n))
	e.rows[n] = r
	return r
}

func (e *Estimator) rowsOf(n Node) float64 {
	switch n := n.(type) {
	case *Scan:
		r := TableRows(n) * Selectivity(n.Filter)
		if n.Limit >= 0 {
			r = math.Min(r, float64(n.Limit))
		}
		return r
	case *Filter:
		return e.Rows(n.Input) * Selectivity(n.Cond)
	case *Project, *Sort, *Window:
		return e.Rows(n.Children()[0])
	case *Limit:
		r := e.Rows(n.Input) - float64(n.Offset)
		if n.Count >= 0 {
			r = math.Min(r, float64(n.Count))
		}
		return r
	case *Aggregate:
		return e.aggregateRows(n)
	case *Join:
		return e.joinRows(n)
	case *SetOp:
		l, r := e.Rows(n.Left), e.Rows(n.Right)
		switch n.Kind {
		case Union:
			return l + r
		case Intersect:
			return math.Min(l, r)
		}
		return l
	case *Values:
		return float64(len(n.Rows))
	}
	r := 0.0
	for _, k := range n.Children() {
		r += e.Rows(k)
	}
	if r == 0 {
		return DefaultRows
	}
	return r
}

// TableRows is the live row count of the scanned table snapshot (DefaultRows when the
// manifest does not say), before the scan's filter and limit.
func TableRows(s *Scan) float64 {
	if rows := s.Table.Stats().Rows; rows >= 0 {
		return float64(rows)
	}
	return DefaultRows
}

// aggregateRows: one row without GROUP BY; otherwise at most the input's rows and at most
// the product of the group keys' domains.
func (e *Estimator) aggregateRows(a *Aggregate) float64 {
	if len(a.GroupBy) == 0 {
		return 1
	}
	in := e.Rows(a.Input)
	groups := 1.0
	for _, g := range a.GroupBy {
		groups *= e.ExprDomain(a.Input, g)
		if groups >= in {
			return in
		}
	}
	return groups
}

// joinRows estimates a join from its inputs, its keys and its residual condition.
func (e *Estimator) joinRows(j *Join) float64 {
	l, r := e.Rows(j.Left), e.Rows(j.Right)
	inner := l * r
	for i := range j.LeftKeys {
		d := math.Min(e.ExprDomain(j.Left, j.LeftKeys[i]), e.ExprDomain(j.Right, j.RightKeys[i]))
		inner = math.Min(inner, EquiJoinRows(l, r, d))
	}
	inner *= Selectivity(j.Cond)
	switch j.Type {
	case LeftJoin:
		return math.Max(inner, l)
	case RightJoin:
		return math.Max(inner, r)
	case FullJoin:
		return math.Max(inner, l+r)
	case SemiJoin:
		return math.Min(inner, l)
	case AntiJoin, MarkJoin:
		return l
	}
	return inner
}

// EquiJoinRows is the output size of an equi-join of l and r rows on a key whose values
// come from a domain of d distinct values: l·r / max(ndv(l), ndv(r)), ndv(x) = min(d, x).
func EquiJoinRows(l, r, d float64) float64 {
	ndv := math.Max(math.Min(d, l), math.Min(d, r))
	return l * r / math.Max(1, ndv)
}

// Domain estimates how many distinct values column col of n's output can take: the row
// count of the table the column comes from when it is a table column read through
// filters, projections and joins, the node's estimated rows otherwise.
func (e *Estimator) Domain(n Node, col int) float64 {
	switch n := n.(type) {
	case *Scan:
		return TableRows(n)
	case *Filter, *Sort, *Limit, *Window:
		in := n.Children()[0]
		if col < in.Schema().NumFields() {
			return e.Domain(in, col)
		}
	case *Project:
		if col < len(n.Exprs) {
			return e.ExprDomain(n.Input, n.Exprs[col])
		}
	case *Aggregate:
		if col < len(n.GroupBy) {
			return math.Min(e.ExprDomain(n.Input, n.GroupBy[col]), e.Rows(n))
		}
	case *Join:
		nl := n.Left.Schema().NumFields()
		switch {
		case col < nl:
			return e.Domain(n.Left, col)
		case n.Type == MarkJoin:
			return 3
		case n.Type != SemiJoin && n.Type != AntiJoin:
			return e.Domain(n.Right, col-nl)
		}
	}
	return e.Rows(n)
}

// ExprDomain is Domain for an expression over n's output: a column (possibly cast) has its
// column's domain, any other expression the node's estimated rows.
func (e *Estimator) ExprDomain(n Node, x Expr) float64 {
	for {
		c, ok := x.(*Cast)
		if !ok {
			break
		}
		x = c.Input
	}
	if c, ok := x.(*ColumnRef); ok && c.Index >= 0 && c.Index < n.Schema().NumFields() {
		return e.Domain(n, c.Index)
	}
	return e.Rows(n)
}

// Selectivity estimates the fraction of rows a condition keeps (nil keeps all): conjuncts
// multiply, disjuncts combine as independent events, an equality keeps SelEquality, a
// comparison SelRange (both bounds of one range, as BETWEEN binds to, count once), and
// anything else SelDefault.
func Selectivity(cond Expr) float64 {
	if cond == nil {
		return 1
	}
	switch c := cond.(type) {
	case *Literal:
		if b, ok := c.Value.(*scalar.Boolean); ok && b.IsValid() && b.Value {
			return 1
		}
		return 0
	case *Call:
		return callSelectivity(c)
	}
	return SelDefault
}

func callSelectivity(c *Call) float64 {
	switch c.Func {
	case "and":
		return andSelectivity(c)
	case "or":
		miss := 1.0
		for _, a := range c.Args {
			miss *= 1 - Selectivity(a)
		}
		return 1 - miss
	case "not":
		if len(c.Args) == 1 {
			return 1 - Selectivity(c.Args[0])
		}
	case "equal", "is_not_distinct_from", "is_null":
		return SelEquality
	case "not_equal", "is_distinct_from", "is_not_null":
		return 1 - SelEquality
	case "lt", "lte", "gt", "gte":
		return SelRange
	}
	return SelDefault
}

// andSelectivity multiplies the conjuncts' selectivities; the comparisons of one
// expression with constants (x >= a AND x <= b) count as one range.
func andSelectivity(c *Call) float64 {
	s := 1.0
	ranges := map[string]bool{}
	for _, a := range SplitConjuncts(c) {
		if x := rangeOperand(a); x != "" {
			if ranges[x] {
				continue
			}
			ranges[x] = true
		}
		s *= Selectivity(a)
	}
	return s
}

// rangeOperand renders x for a comparison of x with a constant, "" for anything else.
func rangeOperand(e Expr) string {
	c, ok := e.(*Call)
	if !ok || len(c.Args) != 2 {
		return ""
	}
	switch c.Func {
	case "lt", "lte", "gt", "gte":
	default:
		return ""
	}
	_, anyL := ColumnRange(c.Args[0], 0, 0)
	_, anyR := ColumnRange(c.Args[1], 0, 0)
	switch {
	case anyL && !anyR:
		return c.Args[0].String()
	case anyR && !anyL:
		return c.Args[1].String()
	}
	return ""
}
