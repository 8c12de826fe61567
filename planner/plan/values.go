package plan

import "github.com/apache/arrow-go/v18/arrow"

// Values produces constant rows: SELECT without FROM, VALUES lists, EXPLAIN output. Each row
// has one expression per column; the expressions reference no columns (they are evaluated
// over a one-row, zero-column input).
type Values struct {
	Rows   [][]Expr
	schema *arrow.Schema
}

// NewValues builds a Values node; schema gives the column names and types.
func NewValues(schema *arrow.Schema, rows [][]Expr) *Values {
	return &Values{Rows: rows, schema: schema}
}

// Schema implements Node.
func (v *Values) Schema() *arrow.Schema { return v.schema }

// Children implements Node.
func (v *Values) Children() []Node { return nil }
