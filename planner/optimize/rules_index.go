package optimize

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/units"
	"github.com/flightd/flightd/planner/plan"
)

// Thresholds of the index decision. A row-level selection is used when it is at most
// indexScanMaxCount rows or indexScanPercentage of the table, DuckDB's defaults for its own
// index scans (index_scan_max_count, index_scan_percentage). A coarser selection (whole
// fragments, zones) is used when it skips at least half of the table and its ranges are
// long enough (minRunRows on average) that reading them beats one sequential scan.
const (
	indexScanMaxCount   = 2048
	indexScanPercentage = 0.001
	minRunRows          = 16
)

// useIndexes attaches the indexable part of each scan's filter to the scan (Scan.Index)
// when the table has scalar indexes (catalog.Indexed) and the selection they answer is
// small enough. The filter stays on the scan in full: the index only narrows what is read.
func useIndexes(ctx context.Context, n plan.Node) plan.Node {
	return transformUp(n, func(n plan.Node) plan.Node {
		s, ok := n.(*plan.Scan)
		if !ok || s.Filter == nil || s.Index != nil {
			return n
		}
		if out := indexScan(ctx, s); out != nil {
			return out
		}
		return n
	})
}

// indexScan returns a copy of s with an index filter, or nil when no index helps.
func indexScan(ctx context.Context, s *plan.Scan) *plan.Scan {
	ix, ok := s.Table.(catalog.Indexed)
	if !ok {
		return nil
	}
	infos, err := ix.Indexes(ctx)
	if err != nil || len(infos) == 0 {
		return nil
	}
	x := indexExtractor{scan: s, indexed: map[int]bool{}}
	for _, in := range infos {
		x.indexed[in.Column] = true
	}
	var parts []*catalog.IndexExpr
	for _, c := range plan.SplitConjuncts(s.Filter) {
		if e, _ := x.extract(c); e != nil {
			parts = append(parts, e)
		}
	}
	expr := combine(catalog.IndexAnd, parts)
	if expr == nil {
		return nil
	}
	// Errors here only mean the index cannot help (the table logs why); the scan stays plain.
	sel, err := ix.SelectRows(ctx, expr)
	if err != nil || sel == nil || !worthIt(sel) {
		return nil
	}
	out := *s // keeps every field, including ones this rule does not know about
	out.Index = &catalog.IndexFilter{Expr: expr, Explain: explainSelection(s.Table, sel)}
	return &out
}

// worthIt decides between the index and a plain scan from the selection's size.
func worthIt(sel *catalog.RowSelection) bool {
	if sel.TotalRows <= 0 || sel.SelectedRows >= sel.TotalRows {
		return false
	}
	if sel.SelectedRows <= max(indexScanMaxCount, int64(float64(sel.TotalRows)*indexScanPercentage)) {
		return true
	}
	return sel.SelectedRows*2 <= sel.TotalRows && int64(sel.Ranges)*minRunRows <= sel.SelectedRows
}

// explainSelection renders the decision for EXPLAIN:
// "index: id_idx (BTree) on id, fragments 1 of 4, rows 1 of 10000, table 1.2 MiB".
func explainSelection(t catalog.Table, sel *catalog.RowSelection) string {
	used := make([]string, len(sel.Used))
	for i, u := range sel.Used {
		name := fmt.Sprintf("#%d", u.Column)
		if u.Column < t.Schema().NumFields() {
			name = t.Schema().Field(u.Column).Name
		}
		used[i] = fmt.Sprintf("%s on %s", u, name)
	}
	out := fmt.Sprintf("index: %s, fragments %d of %d, rows %d of %d", strings.Join(used, " + "),
		sel.SelectedFragments, sel.TotalFragments, sel.SelectedRows, sel.TotalRows)
	if sel.TableBytes > 0 {
		out += ", table " + units.FormatBytes(sel.TableBytes)
	}
	return out
}

// combine joins parts with AND or OR; nil for none, the part itself for one.
func combine(kind catalog.IndexExprKind, parts []*catalog.IndexExpr) *catalog.IndexExpr {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	return &catalog.IndexExpr{Kind: kind, Args: parts}
}

// indexExtractor turns filter expressions over a scan's columns into index expressions on
// the table's indexed columns.
type indexExtractor struct {
	scan    *plan.Scan
	indexed map[int]bool // table columns with an index
}

// comparisons maps comparison functions to index operators, and to the operator with the
// operands swapped.
var comparisons = map[string][2]catalog.IndexOp{
	"equal": {catalog.IndexEq, catalog.IndexEq},
	"lt":    {catalog.IndexLt, catalog.IndexGt},
	"lte":   {catalog.IndexLe, catalog.IndexGe},
	"gt":    {catalog.IndexGt, catalog.IndexLt},
	"gte":   {catalog.IndexGe, catalog.IndexLe},
}

// arrayFuncs maps list functions (SQL's array_has_any/array_has_all and their list_
// aliases) to LABEL_LIST operators.
var arrayFuncs = map[string]catalog.IndexOp{
	"array_has_any": catalog.IndexArrayHasAny, "list_has_any": catalog.IndexArrayHasAny,
	"array_has_all": catalog.IndexArrayHasAll, "list_has_all": catalog.IndexArrayHasAll,
	"array_has": catalog.IndexArrayHasAny, "list_contains": catalog.IndexArrayHasAny,
	"array_contains": catalog.IndexArrayHasAny, "list_has": catalog.IndexArrayHasAny,
}

// extract returns the index expression selecting a superset of e's rows (nil if none);
// full reports that it selects exactly e's rows, which NOT needs.
func (x *indexExtractor) extract(e plan.Expr) (_ *catalog.IndexExpr, full bool) {
	c, ok := e.(*plan.Call)
	if !ok {
		return nil, false
	}
	switch c.Func {
	case "and":
		return x.and(c.Args)
	case "or":
		return x.or(c.Args)
	case "not":
		if len(c.Args) == 1 {
			if in, full := x.extract(c.Args[0]); in != nil && full {
				return &catalog.IndexExpr{Kind: catalog.IndexNot, Args: []*catalog.IndexExpr{in}}, true
			}
		}
		return nil, false
	case "is_null", "is_not_null":
		if col, ok := x.column(c.Args[0]); ok && len(c.Args) == 1 {
			op := map[bool]catalog.IndexOp{true: catalog.IndexIsNull, false: catalog.IndexIsNotNull}[c.Func == "is_null"]
			return &catalog.IndexExpr{Kind: catalog.IndexPred, Column: col, Op: op}, true
		}
		return nil, false
	}
	if ops, ok := comparisons[c.Func]; ok && len(c.Args) == 2 {
		return x.comparison(c.Args[0], c.Args[1], ops)
	}
	if op, ok := arrayFuncs[c.Func]; ok && len(c.Args) == 2 {
		return x.arrayHas(c.Args[0], c.Args[1], op)
	}
	return nil, false
}

func (x *indexExtractor) and(args []plan.Expr) (*catalog.IndexExpr, bool) {
	var parts []*catalog.IndexExpr
	full := true
	for _, a := range args {
		e, f := x.extract(a)
		if e == nil {
			full = false
			continue
		}
		full = full && f
		parts = append(parts, e)
	}
	return combine(catalog.IndexAnd, parts), full && len(parts) > 0
}

// or needs every branch indexable; equalities of one column become one IN.
func (x *indexExtractor) or(args []plan.Expr) (*catalog.IndexExpr, bool) {
	var parts []*catalog.IndexExpr
	full := true
	for _, a := range args {
		e, f := x.extract(a)
		if e == nil {
			return nil, false
		}
		full = full && f
		parts = append(parts, e)
	}
	if in := asIn(parts); in != nil {
		return in, full
	}
	return combine(catalog.IndexOr, parts), full
}

// asIn folds equalities (and INs) on one column into one IN, or returns nil.
func asIn(parts []*catalog.IndexExpr) *catalog.IndexExpr {
	var vals []scalar.Scalar
	for _, p := range parts {
		if p.Kind != catalog.IndexPred || (p.Op != catalog.IndexEq && p.Op != catalog.IndexIn) || p.Column != parts[0].Column {
			return nil
		}
		vals = append(vals, p.Values...)
	}
	return &catalog.IndexExpr{Kind: catalog.IndexPred, Column: parts[0].Column, Op: catalog.IndexIn, Values: vals}
}

func (x *indexExtractor) comparison(a, b plan.Expr, ops [2]catalog.IndexOp) (*catalog.IndexExpr, bool) {
	op := ops[0]
	col, ok := x.column(a)
	lit, isLit := b.(*plan.Literal)
	if !ok || !isLit {
		col, ok = x.column(b)
		lit, isLit = a.(*plan.Literal)
		op = ops[1]
	}
	if !ok || !isLit || !comparable(x.columnType(col), lit.Value.DataType()) {
		return nil, false
	}
	return &catalog.IndexExpr{Kind: catalog.IndexPred, Column: col, Op: op, Values: []scalar.Scalar{lit.Value}}, true
}

func (x *indexExtractor) arrayHas(a, b plan.Expr, op catalog.IndexOp) (*catalog.IndexExpr, bool) {
	col, ok := x.column(a)
	lit, isLit := b.(*plan.Literal)
	if !ok || !isLit || !lit.Value.IsValid() {
		return nil, false
	}
	lt, ok := x.columnType(col).(arrow.ListLikeType)
	if !ok {
		return nil, false
	}
	var vals []scalar.Scalar
	if l, ok := lit.Value.(scalar.ListScalar); ok {
		arr := l.GetList()
		for i := range arr.Len() {
			v, err := scalar.GetScalar(arr, i)
			if err != nil {
				return nil, false
			}
			vals = append(vals, v)
		}
	} else {
		vals = []scalar.Scalar{lit.Value}
	}
	for _, v := range vals {
		if !comparable(lt.Elem(), v.DataType()) {
			return nil, false
		}
	}
	return &catalog.IndexExpr{Kind: catalog.IndexPred, Column: col, Op: op, Values: vals}, true
}

// column returns the indexed table column e reads, directly or through a cast that keeps
// every value and its order (integer widening, float32 to float64, string to large string).
func (x *indexExtractor) column(e plan.Expr) (int, bool) {
	if c, ok := e.(*plan.Cast); ok && !c.Try && exactCast(c.Input.Type(), c.DataType) {
		e = c.Input
	}
	ref, ok := e.(*plan.ColumnRef)
	if !ok || ref.Index < 0 || ref.Index >= len(x.scan.Columns) {
		return 0, false // hidden row columns (past Columns) have no index
	}
	col := x.scan.Columns[ref.Index]
	return col, x.indexed[col]
}

func (x *indexExtractor) columnType(col int) arrow.DataType {
	return x.scan.Table.Schema().Field(col).Type
}

// exactCast reports whether casting from → to maps distinct values to distinct values in
// the same order, so that the index (which compares values, not types) answers the same.
func exactCast(from, to arrow.DataType) bool {
	if arrow.TypeEqual(from, to) {
		return true
	}
	fs, fok := intWidth(from)
	ts, tok := intWidth(to)
	if fok && tok {
		return (fs.signed == ts.signed && ts.bits >= fs.bits) || (!fs.signed && ts.signed && ts.bits > fs.bits)
	}
	switch {
	case from.ID() == arrow.FLOAT32 && to.ID() == arrow.FLOAT64:
		return true
	case from.ID() == arrow.STRING && to.ID() == arrow.LARGE_STRING:
		return true
	}
	return false
}

type intKind struct {
	bits   int
	signed bool
}

func intWidth(t arrow.DataType) (intKind, bool) {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return intKind{t.(arrow.FixedWidthDataType).BitWidth(), true}, true
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return intKind{t.(arrow.FixedWidthDataType).BitWidth(), false}, true
	}
	return intKind{}, false
}

// comparable reports whether the index compares a literal of type lit with a column of type
// col as SQL does: numbers by value, strings by bytes, temporal values only in the same unit.
func comparable(col, lit arrow.DataType) bool {
	if lit.ID() == arrow.NULL || arrow.TypeEqual(col, lit) {
		return true
	}
	_, ci := intWidth(col)
	_, li := intWidth(lit)
	isFloat := func(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }
	isStr := func(t arrow.DataType) bool { return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING }
	switch {
	case ci && li, isFloat(col) && (li || isFloat(lit)):
		return true
	case isStr(col) && isStr(lit):
		return true
	}
	return false
}
