package plan

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// IndexDDLKind says what an IndexDDL statement does.
type IndexDDLKind int

// Index DDL kinds.
const (
	CreateIndex   IndexDDLKind = iota + 1 // CREATE INDEX
	DropIndex                             // DROP INDEX
	OptimizeIndex                         // ALTER INDEX ... OPTIMIZE
)

// String is the statement's SQL spelling.
func (k IndexDDLKind) String() string {
	switch k {
	case CreateIndex:
		return "CREATE INDEX"
	case DropIndex:
		return "DROP INDEX"
	case OptimizeIndex:
		return "ALTER INDEX OPTIMIZE"
	}
	return "INDEX DDL"
}

// IndexDDL creates, drops or incrementally maintains a scalar index of a table through the
// catalog's catalog.Indexer, committing one table version. Like the other writes it is a plan
// root whose output is CountSchema: the rows the new index segment covers (0 for DROP INDEX
// and for a statement that had nothing to do). Source is an empty Values, so that the write
// machinery (WriteSource) treats it like CREATE TABLE without AS.
type IndexDDL struct {
	Kind IndexDDLKind
	// Catalog holds the table; the executor finds its catalog.Indexer by type assertion.
	Catalog catalog.Catalog
	// Table is the table's name; "" when DROP INDEX IF EXISTS found no table with the index
	// (the statement then does nothing).
	Table string
	// Name is the index name.
	Name string
	// Column and Type are CREATE INDEX's column (as named in the table's schema) and index
	// type ("BTREE", "BITMAP", "LABEL_LIST", "ZONEMAP" or "BLOOMFILTER").
	Column, Type string
	// IfNotExists (CREATE) and IfExists (DROP) turn "exists" / "does not exist" into a no-op.
	IfNotExists, IfExists bool
	Source                Node
}

// Schema implements Node.
func (*IndexDDL) Schema() *arrow.Schema { return CountSchema }

// Children implements Node.
func (d *IndexDDL) Children() []Node { return []Node{d.Source} }
