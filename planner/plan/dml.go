package plan

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// Writes. INSERT, DELETE and UPDATE bind to one of the nodes below (CREATE TABLE to
// CreateTable, create_table.go): a target table and a
// source query whose rows say what to write. The executor drains the source, commits one new
// table version through the catalog's write capability (catalog.Writer, Deleter, Updater) and
// outputs one row: the number of rows affected (CountSchema, as DuckDB answers a write).
// Write nodes are the root of a plan; they are never produced to Substrait.

// CountSchema is the result of a write: one non-null int64 column "Count".
var CountSchema = arrow.NewSchema([]arrow.Field{{Name: "Count", Type: arrow.PrimitiveTypes.Int64}}, nil)

// WriteTarget is the table a write changes.
type WriteTarget struct {
	// Catalog holds the table; the executor finds its write capability by type assertion.
	Catalog catalog.Catalog
	// Table is the snapshot the statement read: its name, its schema and, as Version(), the
	// read version the commit is checked against.
	Table catalog.Table
}

// Insert appends the rows of Source to the target table. Source's columns are the table's
// columns, in order and of the same types (the binder casts them and fills columns the
// statement does not name with NULL); the executor checks non-nullable columns.
type Insert struct {
	Target WriteTarget
	Source Node
}

// Delete deletes the target table's rows whose row addresses Source yields: Source has one
// non-null uint64 column, catalog.RowAddrColumn of the table's scan at the read version.
type Delete struct {
	Target WriteTarget
	Source Node
}

// Update replaces rows of the target table: each row of Source is a row address (column 0,
// uint64) followed by the new values of all the table's columns (columns 1..n, in order and
// of the table's types).
type Update struct {
	Target WriteTarget
	Source Node
}

// Schema implements Node.
func (*Insert) Schema() *arrow.Schema { return CountSchema }

// Children implements Node.
func (w *Insert) Children() []Node { return []Node{w.Source} }

// Schema implements Node.
func (*Delete) Schema() *arrow.Schema { return CountSchema }

// Children implements Node.
func (w *Delete) Children() []Node { return []Node{w.Source} }

// Schema implements Node.
func (*Update) Schema() *arrow.Schema { return CountSchema }

// Children implements Node.
func (w *Update) Children() []Node { return []Node{w.Source} }

// WriteSource returns the source of a write node and ok, or ok false when n is not one.
func WriteSource(n Node) (src Node, ok bool) {
	switch w := n.(type) {
	case *Insert:
		return w.Source, true
	case *Delete:
		return w.Source, true
	case *Update:
		return w.Source, true
	case *CreateTable:
		return w.Source, true
	case *IndexDDL:
		return w.Source, true
	}
	return nil, false
}

// WithWriteSource returns a copy of the write node n with its source replaced (after
// optimization, say). It returns n itself when n is not a write node.
func WithWriteSource(n Node, src Node) Node {
	switch w := n.(type) {
	case *Insert:
		c := *w
		c.Source = src
		return &c
	case *Delete:
		c := *w
		c.Source = src
		return &c
	case *Update:
		c := *w
		c.Source = src
		return &c
	case *CreateTable:
		c := *w
		c.Source = src
		return &c
	case *IndexDDL:
		c := *w
		c.Source = src
		return &c
	}
	return n
}
