package plan

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// CreateTable creates a table (CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (columns) | AS
// query) through the catalog's catalog.Writer, with the rows of Source: none for a column
// list, the query's for AS. Its output is CountSchema: the rows written.
type CreateTable struct {
	// Catalog holds the new table; the executor finds its catalog.Writer by type assertion.
	Catalog catalog.Catalog
	Name    string
	// Table is the new table's schema; Source's columns have its names and types (its
	// non-nullable columns are checked when the rows are written).
	Table *arrow.Schema
	// Mode is catalog.CreateOrReplace for OR REPLACE, else catalog.CreateNew.
	Mode catalog.CreateMode
	// IfNotExists turns "the table exists" into a no-op that writes nothing.
	IfNotExists bool
	Source      Node
}

// Schema implements Node.
func (*CreateTable) Schema() *arrow.Schema { return CountSchema }

// Children implements Node.
func (c *CreateTable) Children() []Node { return []Node{c.Source} }
