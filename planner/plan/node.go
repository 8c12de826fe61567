package plan

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// Node is a logical relational operator.
type Node interface {
	// Schema is the node's output schema.
	Schema() *arrow.Schema
	// Children are the node's inputs, in order.
	Children() []Node
}

// Scan reads a table snapshot. It outputs the projected columns, in order, then the hidden
// row columns it asks for, after applying Filter (if any) and at most Limit rows (negative:
// no limit).
type Scan struct {
	Table   catalog.Table
	Columns []int // indices into Table.Schema()
	Filter  Expr  // over the projected columns; nil means none
	Limit   int64
	// Shard restricts the scan to a subset of the table's morsels, so that one query can be
	// fetched through several Flight endpoints in parallel. The zero value reads everything.
	Shard Shard
	// Index lets the scan read only the rows the table's scalar indexes select for part of
	// Filter (catalog.ScanRequest.Index); Filter is still applied in full. Set by the
	// optimizer (planner/optimize rules_index.go); nil means a plain scan.
	Index  *catalog.IndexFilter
	schema *arrow.Schema

	// RowID and RowAddr append the hidden non-null uint64 columns catalog.RowIDColumn and
	// catalog.RowAddrColumn, in that order, after Columns (catalog.ScanRequest's fields of
	// the same names). NewRowScan sets them; the schema is computed at construction.
	RowID, RowAddr bool
}

// Shard selects the morsels whose position i in Table.Morsels satisfies i % Count == Index.
// Count 0 (or 1) means all morsels.
type Shard struct {
	Index, Count int
}

// Keeps reports whether the morsel at position i belongs to the shard.
func (s Shard) Keeps(i int) bool {
	return s.Count <= 1 || i%s.Count == s.Index
}

// NewScan builds a scan of the given columns of t with no filter and no limit.
func NewScan(t catalog.Table, columns []int) *Scan {
	return NewRowScan(t, columns, false, false)
}

// Schema implements Node.
func (s *Scan) Schema() *arrow.Schema { return s.schema }

// Children implements Node.
func (s *Scan) Children() []Node { return nil }

func projectSchema(in *arrow.Schema, cols []int) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = in.Field(c)
	}
	return arrow.NewSchema(fields, nil)
}

// Filter keeps the rows for which Cond is true (NULL counts as false).
type Filter struct {
	Input Node
	Cond  Expr
}

// Schema implements Node.
func (f *Filter) Schema() *arrow.Schema { return f.Input.Schema() }

// Children implements Node.
func (f *Filter) Children() []Node { return []Node{f.Input} }

// Project computes one output column per expression.
type Project struct {
	Input  Node
	Exprs  []Expr
	Names  []string
	schema *arrow.Schema
}

// NewProject builds a projection; names and exprs have equal length.
func NewProject(input Node, exprs []Expr, names []string) *Project {
	fields := make([]arrow.Field, len(exprs))
	for i, e := range exprs {
		fields[i] = arrow.Field{Name: names[i], Type: e.Type(), Nullable: e.Nullable()}
	}
	return &Project{Input: input, Exprs: exprs, Names: names, schema: arrow.NewSchema(fields, nil)}
}

// Schema implements Node.
func (p *Project) Schema() *arrow.Schema { return p.schema }

// Children implements Node.
func (p *Project) Children() []Node { return []Node{p.Input} }

// AggCall is one aggregate: Func over Args ("count" with no Args is count(*)).
type AggCall struct {
	Func     string // "count", "sum", "min", "max", "avg", ...
	Args     []Expr
	Distinct bool
	Filter   Expr // FILTER (WHERE ...); nil means none
	DataType arrow.DataType
	Null     bool
	Name     string
}

// Aggregate groups by GroupBy and computes Aggs per group. The output is the group keys
// followed by the aggregates. With no GroupBy it yields exactly one row.
type Aggregate struct {
	Input   Node
	GroupBy []Expr
	Names   []string // names of the group-by outputs
	Aggs    []AggCall
	schema  *arrow.Schema
}

// NewAggregate builds an aggregate node.
func NewAggregate(input Node, groupBy []Expr, names []string, aggs []AggCall) *Aggregate {
	fields := make([]arrow.Field, 0, len(groupBy)+len(aggs))
	for i, g := range groupBy {
		fields = append(fields, arrow.Field{Name: names[i], Type: g.Type(), Nullable: g.Nullable()})
	}
	for _, a := range aggs {
		fields = append(fields, arrow.Field{Name: a.Name, Type: a.DataType, Nullable: a.Null})
	}
	return &Aggregate{Input: input, GroupBy: groupBy, Names: names, Aggs: aggs, schema: arrow.NewSchema(fields, nil)}
}

// Schema implements Node.
func (a *Aggregate) Schema() *arrow.Schema { return a.schema }

// Children implements Node.
func (a *Aggregate) Children() []Node { return []Node{a.Input} }

// SortKey orders by Expr.
type SortKey struct {
	Expr       Expr
	Descending bool
	NullsFirst bool
}

// Sort orders its input by Keys, the first key most significant. The sort is stable.
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Schema implements Node.
func (s *Sort) Schema() *arrow.Schema { return s.Input.Schema() }

// Children implements Node.
func (s *Sort) Children() []Node { return []Node{s.Input} }

// Limit skips Offset rows and then passes at most Count rows (negative Count: no limit).
type Limit struct {
	Input  Node
	Offset int64
	Count  int64
}

// Schema implements Node.
func (l *Limit) Schema() *arrow.Schema { return l.Input.Schema() }

// Children implements Node.
func (l *Limit) Children() []Node { return []Node{l.Input} }
