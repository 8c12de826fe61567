package bind

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/plan"
)

// Hidden row columns. Every base table has two, catalog.RowIDColumn (_rowid) and
// catalog.RowAddrColumn (_rowaddr), non-null uint64, as pylance has them. They are not part
// of * (nor of t.*, NATURAL or USING), but any query can name them, qualified or not. A
// real column of the same name wins: the table then has no hidden column of that name, and
// an unqualified name resolves to a hidden column only when no visible column has it.
//
// To keep the plans of every other statement unchanged, a statement's scans carry a hidden
// column only when the statement's text mentions its name (rowColumns); the optimizer's
// projection pushdown drops those that no expression reads.

// rowColumns says which hidden row columns the scans of a statement carry.
type rowColumns struct {
	id, addr bool
}

// mentionedRowColumns returns the hidden columns stmt's text names: a cheap superset of
// the columns it references (a string literal or a longer identifier containing the name
// also counts, which only costs a column the optimizer prunes).
func mentionedRowColumns(stmt ast.Statement) rowColumns {
	text := strings.ToLower(ast.StatementSQL(stmt))
	return rowColumns{
		id:   strings.Contains(text, catalog.RowIDColumn),
		addr: strings.Contains(text, catalog.RowAddrColumn),
	}
}

// or returns the union of two sets.
func (r rowColumns) or(o rowColumns) rowColumns {
	return rowColumns{id: r.id || o.id, addr: r.addr || o.addr}
}

// baseTableScan builds the scan of all columns of t, with the hidden row columns the
// statement needs that t has no real column for, and its scope under the name rel.
func (b *binder) baseTableScan(t catalog.Table, rel string) (*plan.Scan, *scope) {
	s := t.Schema()
	cols := make([]int, s.NumFields())
	for i := range cols {
		cols[i] = i
	}
	rowID := b.rowCols.id && !hasColumn(s, catalog.RowIDColumn)
	rowAddr := b.rowCols.addr && !hasColumn(s, catalog.RowAddrColumn)
	scan := plan.NewRowScan(t, cols, rowID, rowAddr)
	sc := tableScope(s, rel)
	for i, f := range scan.Schema().Fields()[len(cols):] {
		sc.cols = append(sc.cols, scopeCol{rel: rel, index: len(cols) + i, field: f, system: true})
	}
	return scan, sc
}

// hasColumn reports whether s has a column named name, compared case-insensitively as
// column names resolve.
func hasColumn(s *arrow.Schema, name string) bool {
	for _, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}
