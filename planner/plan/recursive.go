package plan

import "github.com/apache/arrow-go/v18/arrow"

// RecursiveCTE is WITH RECURSIVE's fixpoint: Anchor's rows, then Step run again and again
// over the rows the previous round produced (the working table, read by WorkingTable nodes
// with the same ID inside Step) until a round produces no row. With All unset (UNION) a
// row already produced is dropped, so the working table holds only new rows. Step's
// columns are already cast to the anchor's types. Every column is nullable.
type RecursiveCTE struct {
	Anchor, Step Node
	All          bool
	ID           int64
	schema       *arrow.Schema
}

// NewRecursiveCTE builds the fixpoint of anchor and step under id; the output has the
// anchor's names and types, every column nullable.
func NewRecursiveCTE(anchor, step Node, all bool, id int64) *RecursiveCTE {
	return &RecursiveCTE{Anchor: anchor, Step: step, All: all, ID: id, schema: NullableSchema(anchor.Schema())}
}

// Schema implements Node.
func (r *RecursiveCTE) Schema() *arrow.Schema { return r.schema }

// Children implements Node.
func (r *RecursiveCTE) Children() []Node { return []Node{r.Anchor, r.Step} }

// WorkingTable reads the working table of the RecursiveCTE with the same ID: the rows its
// previous round produced.
type WorkingTable struct {
	ID     int64
	schema *arrow.Schema
}

// NewWorkingTable builds the working-table read of the recursive CTE id with schema (made
// nullable).
func NewWorkingTable(id int64, schema *arrow.Schema) *WorkingTable {
	return &WorkingTable{ID: id, schema: NullableSchema(schema)}
}

// Schema implements Node.
func (w *WorkingTable) Schema() *arrow.Schema { return w.schema }

// Children implements Node.
func (w *WorkingTable) Children() []Node { return nil }

// NullableSchema is s with every field nullable.
func NullableSchema(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		f.Nullable = true
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}
