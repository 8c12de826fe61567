package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Range is the table function range(start, stop, step) (Inclusive unset: stop excluded)
// or generate_series(start, stop, step) (Inclusive set): one BIGINT column named Name
// with start, start+step, ... while before (or, inclusive, at) stop. Step is never 0.
// Empty is set when an argument was NULL: no rows.
type Range struct {
	Start, Stop, Step int64
	Inclusive, Empty  bool
	schema            *arrow.Schema
}

// NewRange builds a Range node whose one column is called name.
func NewRange(name string, start, stop, step int64, inclusive, empty bool) *Range {
	s := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
	return &Range{Start: start, Stop: stop, Step: step, Inclusive: inclusive, Empty: empty, schema: s}
}

// Schema implements Node.
func (r *Range) Schema() *arrow.Schema { return r.schema }

// Children implements Node.
func (r *Range) Children() []Node { return nil }

// String renders the node for EXPLAIN.
func (r *Range) String() string {
	fn := "range"
	if r.Inclusive {
		fn = "generate_series"
	}
	if r.Empty {
		return fn + "(NULL)"
	}
	return fmt.Sprintf("%s(%d, %d, %d)", fn, r.Start, r.Stop, r.Step)
}

// Unnest is DuckDB's UNNEST: for every input row it outputs as many rows as its longest
// list in Lists (expressions over Input of list type), each with the input's columns and
// then the i-th element of every list, NULL where a list is shorter. A row whose lists
// are all NULL or empty outputs nothing.
type Unnest struct {
	Input  Node
	Lists  []Expr
	schema *arrow.Schema
}

// NewUnnest builds an Unnest node; names are the names of the element columns.
func NewUnnest(input Node, lists []Expr, names []string) *Unnest {
	fields := append([]arrow.Field{}, input.Schema().Fields()...)
	for i, l := range lists {
		fields = append(fields, arrow.Field{Name: names[i], Type: ListElem(l.Type()), Nullable: true})
	}
	return &Unnest{Input: input, Lists: lists, schema: arrow.NewSchema(fields, nil)}
}

// ListElem is the element type of a list type (NULL for anything else: UNNEST(NULL)).
func ListElem(t arrow.DataType) arrow.DataType {
	if l, ok := t.(arrow.ListLikeType); ok {
		return l.Elem()
	}
	return arrow.Null
}

// Schema implements Node.
func (u *Unnest) Schema() *arrow.Schema { return u.schema }

// Children implements Node.
func (u *Unnest) Children() []Node { return []Node{u.Input} }

// String renders the node for EXPLAIN.
func (u *Unnest) String() string {
	s := "Unnest:"
	for i, l := range u.Lists {
		if i > 0 {
			s += ","
		}
		s += " " + l.String()
	}
	return s
}

// WithInput is u over another input with the same columns (lists unchanged), for
// rewrites that replace the input.
func (u *Unnest) WithInput(in Node) *Unnest {
	w := u.Input.Schema().NumFields()
	names := make([]string, len(u.Lists))
	for i := range names {
		names[i] = u.schema.Field(w + i).Name
	}
	return NewUnnest(in, u.Lists, names)
}
