package bind

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// orderKey is a bound ORDER BY key: an output column of the projection (select list plus
// hidden columns).
type orderKey struct {
	col        int
	desc       bool
	nullsFirst bool
}

// bindOrderBy resolves each ORDER BY item to a select-list column (by ordinal, alias or
// equal expression) or adds it as a hidden column.
func (st *selectState) bindOrderBy(eb *exprBinder) ([]orderKey, error) {
	var keys []orderKey
	ob := *eb
	ob.clause = "ORDER BY clause"
	for _, o := range st.s.OrderBy {
		k := orderKey{desc: o.Desc}
		if o.NullsFirst != nil {
			k.nullsFirst = *o.NullsFirst
		}
		if _, all := o.Expr.(*ast.OrderAll); all {
			keys = append(keys, st.orderAll(k)...) // order_all.go
			continue
		}
		col, err := st.orderColumn(&ob, o.Expr)
		if err != nil {
			return nil, err
		}
		k.col = col
		keys = append(keys, k)
	}
	return keys, nil
}

func (st *selectState) orderColumn(eb *exprBinder, e ast.Expr) (int, error) {
	if lit, ok := e.(*ast.Literal); ok && lit.Kind == ast.LitInt {
		it, _, err := st.selectRef(e, false)
		if err != nil {
			return 0, err
		}
		return st.itemIndex(it), nil
	}
	if ref, ok := e.(*ast.ColumnRef); ok && len(ref.Parts) == 1 {
		for i, it := range st.items {
			if it.alias && strings.EqualFold(it.name, ref.Parts[0]) {
				return i, nil
			}
		}
	}
	bound, err := eb.bind(e)
	if err != nil {
		return 0, err
	}
	key := bound.String()
	for i, x := range st.exprs {
		if x.String() == key {
			return i, nil
		}
	}
	for i, x := range st.hidden {
		if x.String() == key {
			return len(st.exprs) + i, nil
		}
	}
	if st.s.Distinct {
		return 0, dberr.New(dberr.Binder, "for SELECT DISTINCT, ORDER BY expressions must appear in select list").At(e.Position().Line, e.Position().Column)
	}
	st.hidden = append(st.hidden, bound)
	return len(st.exprs) + len(st.hidden) - 1, nil
}

// itemIndex finds a select item's position (items are compared by identity of their AST).
func (st *selectState) itemIndex(it selectItem) int {
	for i, x := range st.items {
		if x.expr == it.expr && x.name == it.name {
			return i
		}
	}
	return 0
}

// finish adds the projection, DISTINCT, Sort, Limit and the final projection that drops
// hidden sort columns.
func (st *selectState) finish(node plan.Node, keys []orderKey) (plan.Node, error) {
	exprs := append(append([]plan.Expr{}, st.exprs...), st.corrOutputs()...)
	exprs = append(exprs, st.hidden...)
	names := make([]string, 0, len(exprs))
	for _, it := range st.items {
		names = append(names, it.name)
	}
	for i := len(names); i < len(exprs)-len(st.hidden); i++ {
		names = append(names, "__corr"+strconv.Itoa(i-len(st.items)))
	}
	for i := range st.hidden {
		names = append(names, "__order"+strconv.Itoa(i))
	}
	proj := plan.NewProject(node, exprs, names)
	node = proj
	if st.s.Distinct {
		node = distinct(proj)
	}
	if len(st.onCols) > 0 {
		node = st.distinctOn(proj, keys)
	}
	if len(keys) > 0 {
		sk := make([]plan.SortKey, len(keys))
		for i, k := range keys {
			f := node.Schema().Field(k.col)
			sk[i] = plan.SortKey{
				Expr:       &plan.ColumnRef{Index: k.col, Name: f.Name, DataType: f.Type, Null: f.Nullable},
				Descending: k.desc, NullsFirst: k.nullsFirst,
			}
		}
		node = &plan.Sort{Input: node, Keys: sk}
	}
	node, err := st.bindLimit(node)
	if err != nil {
		return nil, err
	}
	if len(st.hidden) > 0 {
		node = plan.NewProject(node, columnRefs(node.Schema(), len(st.exprs)), names[:len(st.exprs)])
	}
	return node, nil
}

// distinct groups by every column of proj.
func distinct(proj *plan.Project) plan.Node {
	refs := columnRefs(proj.Schema(), len(proj.Exprs))
	return plan.NewAggregate(proj, refs, proj.Names, nil)
}

// columnRefs references the first n columns of s.
func columnRefs(s *arrow.Schema, n int) []plan.Expr {
	out := make([]plan.Expr, n)
	for i := range n {
		f := s.Field(i)
		out[i] = &plan.ColumnRef{Index: i, Name: f.Name, DataType: f.Type, Null: f.Nullable}
	}
	return out
}

// bindLimit adds LIMIT/OFFSET; both must be constant non-negative integers.
func (st *selectState) bindLimit(node plan.Node) (plan.Node, error) {
	if st.s.Limit == nil && st.s.Offset == nil {
		return node, nil
	}
	count, err := constantCount(st.s.Limit, "LIMIT", -1, st.b.params)
	if err != nil {
		return nil, err
	}
	offset, err := constantCount(st.s.Offset, "OFFSET", 0, st.b.params)
	if err != nil {
		return nil, err
	}
	return &plan.Limit{Input: node, Offset: offset, Count: count}, nil
}

func constantCount(e ast.Expr, clause string, absent int64, ps *params) (int64, error) {
	if e == nil {
		return absent, nil
	}
	pos := e.Position()
	if p, ok := e.(*ast.Param); ok && ps != nil {
		ps.note(paramIndex(p), arrow.PrimitiveTypes.Int64)
		if ps.values == nil {
			return absent, nil
		}
	}
	eb := &exprBinder{b: &binder{params: ps}, scope: &scope{noColumns: true}, clause: clause + " clause"}
	bound, err := eb.bind(e)
	if err != nil {
		return 0, err
	}
	bound = foldInteger(bound)
	if lit, ok := bound.(*plan.Literal); ok && !lit.Value.IsValid() {
		return absent, nil
	}
	n, ok := int64Of(bound)
	if !ok {
		return 0, dberr.NotSupported("non-constant "+clause).At(pos.Line, pos.Column)
	}
	if n < 0 {
		return 0, dberr.New(dberr.Binder, "%s cannot be negative", clause).At(pos.Line, pos.Column)
	}
	return n, nil
}

// corrOutputs are the correlation keys a correlated subquery outputs after its columns:
// the inner key expressions, or the aggregate's leading group keys.
func (st *selectState) corrOutputs() []plan.Expr {
	c := st.in.corr
	if c == nil || len(c.inner)+len(c.extra) == 0 {
		return nil
	}
	if st.agg == nil {
		return c.outputs()
	}
	out := make([]plan.Expr, len(c.inner))
	for i, g := range st.agg.groups[:len(c.inner)] {
		out[i] = &plan.ColumnRef{Index: i, Name: st.agg.names[i], DataType: g.Type(), Null: g.Nullable()}
	}
	return out
}

// bindDistinctOn resolves the DISTINCT ON expressions to projection columns (select-list
// items or hidden columns, as ORDER BY keys are).
func (st *selectState) bindDistinctOn(eb *exprBinder) error {
	ob := *eb
	ob.clause = "DISTINCT ON clause"
	ob.win = nil
	for _, e := range st.s.DistinctOn {
		col, err := st.orderColumn(&ob, e)
		if err != nil {
			return err
		}
		st.onCols = append(st.onCols, col)
	}
	return nil
}

// distinctOn keeps the first row of each DISTINCT ON group in ORDER BY order:
// row_number() OVER (PARTITION BY keys ORDER BY order) = 1.
func (st *selectState) distinctOn(proj *plan.Project, keys []orderKey) plan.Node {
	s := proj.Schema()
	n := s.NumFields()
	ref := func(i int) plan.Expr { return fieldRef(s, i) }
	w := plan.WindowFunc{Func: "row_number", DataType: arrow.PrimitiveTypes.Int64, Name: "__distinct_on"}
	for _, c := range st.onCols {
		w.PartitionBy = append(w.PartitionBy, ref(c))
	}
	for _, k := range keys {
		w.OrderBy = append(w.OrderBy, plan.SortKey{Expr: ref(k.col), Descending: k.desc, NullsFirst: k.nullsFirst})
	}
	win := plan.NewWindow(proj, []plan.WindowFunc{w})
	one := &plan.Literal{Value: scalar.NewInt64Scalar(1)}
	rn := fieldRef(win.Schema(), n)
	cond := &plan.Call{Func: "equal", Args: []plan.Expr{rn, one}, DataType: arrow.FixedWidthTypes.Boolean}
	return plan.NewProject(&plan.Filter{Input: win, Cond: cond}, columnRefs(s, n), proj.Names)
}
