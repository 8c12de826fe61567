package ast

import "strings"

// TableFunc is a table function in FROM: name(args) [AS] alias [(column aliases)], e.g.
// range(3), generate_series(1, 10, 2) or unnest([1, 2]).
type TableFunc struct {
	Pos     Pos
	Name    string // lower case
	Args    []Expr
	Alias   string
	Columns []string
}

func (*TableFunc) fromItem() {}

// Position implements FromItem.
func (t *TableFunc) Position() Pos { return t.Pos }

// tableFuncSQL renders a table function with its alias.
func (sf stmtFormatter) tableFuncSQL(f *TableFunc) string {
	var sb strings.Builder
	sb.WriteString(sf.ident(f.Name))
	sb.WriteString("(" + sf.exprList(f.Args) + ")")
	if f.Alias != "" {
		sb.WriteString(" AS " + sf.ident(f.Alias) + sf.columnsSQL(f.Columns))
	}
	return sb.String()
}
