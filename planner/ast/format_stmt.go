package ast

import (
	"strings"
)

// StatementSQL renders a statement as SQL that parses back to the same tree.
func StatementSQL(s Statement) string { return stmtFormatter{faithful: true}.stmt(s) }

// statementText renders a statement the way DuckDB names a subquery column: unquoted.
func statementText(s Statement) string { return stmtFormatter{}.stmt(s) }

// stmtFormatter renders statements faithfully (quoted, re-parsable) or as DuckDB's
// column-name text.
type stmtFormatter struct{ faithful bool }

func (sf stmtFormatter) expr(e Expr) string {
	if sf.faithful {
		return SQL(e)
	}
	return Format(e)
}

func (sf stmtFormatter) ident(s string) string {
	if sf.faithful {
		return QuoteIdent(s)
	}
	return s
}

func (sf stmtFormatter) stmt(s Statement) string {
	switch s := s.(type) {
	case *Explain:
		if s.Analyze {
			return "EXPLAIN ANALYZE " + sf.stmt(s.Query)
		}
		return "EXPLAIN " + sf.stmt(s.Query)
	case *Select:
		return sf.selectSQL(s)
	case *SetOp:
		return sf.setOpSQL(s)
	case *With:
		return sf.withSQL(s)
	case *Values:
		return sf.valuesSQL(s)
	}
	if out, ok := sf.ddlSQL(s); ok {
		return out
	}
	return ""
}

func (sf stmtFormatter) exprList(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = sf.expr(e)
	}
	return strings.Join(parts, ", ")
}

func (sf stmtFormatter) selectSQL(s *Select) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	if len(s.DistinctOn) > 0 {
		b.WriteString("DISTINCT ON (" + sf.exprList(s.DistinctOn) + ") ")
	}
	items := make([]string, len(s.Items))
	for i, it := range s.Items {
		items[i] = sf.itemSQL(it)
	}
	b.WriteString(strings.Join(items, ", "))
	if s.From != nil {
		b.WriteString(" FROM " + sf.fromSQL(s.From))
	}
	clause := func(kw string, e Expr) {
		if e != nil {
			b.WriteString(" " + kw + " " + sf.expr(e))
		}
	}
	clause("WHERE", s.Where)
	if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + sf.exprList(s.GroupBy))
	}
	clause("HAVING", s.Having)
	if len(s.Windows) > 0 {
		parts := make([]string, len(s.Windows))
		for i, w := range s.Windows {
			f := formatter{faithful: sf.faithful}
			spec := w.Spec
			f.windowSpec(&spec)
			parts[i] = sf.ident(w.Name) + " AS (" + f.String() + ")"
		}
		b.WriteString(" WINDOW " + strings.Join(parts, ", "))
	}
	clause("QUALIFY", s.Qualify)
	b.WriteString(sf.tailSQL(s.OrderBy, s.Limit, s.Offset))
	return b.String()
}

func (sf stmtFormatter) itemSQL(it SelectItem) string {
	switch {
	case it.Star && it.StarTable != "":
		return sf.ident(it.StarTable) + ".*" + sf.starSuffix(it)
	case it.Star:
		return "*" + sf.starSuffix(it)
	case it.Alias != "":
		return sf.expr(it.Expr) + " AS " + sf.ident(it.Alias)
	}
	return sf.expr(it.Expr)
}

func (sf stmtFormatter) tableSQL(t *TableRef) string {
	parts := make([]string, len(t.Name))
	for i, p := range t.Name {
		parts[i] = sf.ident(p)
	}
	s := strings.Join(parts, ".")
	if t.Alias != "" {
		s += " AS " + sf.ident(t.Alias)
	}
	if t.At != nil {
		s += " AT (" + t.At.Unit.String() + " => " + sf.expr(t.At.Expr) + ")"
	}
	return s
}

func (sf stmtFormatter) orderSQL(o OrderItem) string {
	s := sf.expr(o.Expr)
	if o.Desc {
		s += " DESC"
	}
	if o.NullsFirst != nil {
		if *o.NullsFirst {
			s += " NULLS FIRST"
		} else {
			s += " NULLS LAST"
		}
	}
	return s
}

// tailSQL renders ORDER BY, LIMIT and OFFSET with a leading space.
func (sf stmtFormatter) tailSQL(order []OrderItem, limit, offset Expr) string {
	var b strings.Builder
	if len(order) > 0 {
		keys := make([]string, len(order))
		for i, o := range order {
			keys[i] = sf.orderSQL(o)
		}
		b.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	}
	if limit != nil {
		b.WriteString(" LIMIT " + sf.expr(limit))
	}
	if offset != nil {
		b.WriteString(" OFFSET " + sf.expr(offset))
	}
	return b.String()
}

// subquerySQL renders a statement in parentheses.
func (sf stmtFormatter) subquerySQL(s Statement) string { return "(" + sf.stmt(s) + ")" }

func (sf stmtFormatter) setOpSQL(s *SetOp) string {
	op := s.Op
	if s.All {
		op += " ALL"
	}
	if s.ByName {
		op += " BY NAME"
	}
	return sf.subquerySQL(s.Left) + " " + op + " " + sf.subquerySQL(s.Right) + sf.tailSQL(s.OrderBy, s.Limit, s.Offset)
}

func (sf stmtFormatter) withSQL(w *With) string {
	parts := make([]string, len(w.CTEs))
	for i, c := range w.CTEs {
		parts[i] = sf.ident(c.Name) + sf.columnsSQL(c.Columns) + " AS " + sf.subquerySQL(c.Query)
	}
	kw := "WITH "
	if w.Recursive {
		kw = "WITH RECURSIVE "
	}
	return kw + strings.Join(parts, ", ") + " " + sf.stmt(w.Query)
}

func (sf stmtFormatter) columnsSQL(cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = sf.ident(c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (sf stmtFormatter) valuesSQL(v *Values) string {
	rows := make([]string, len(v.Rows))
	for i, r := range v.Rows {
		rows[i] = "(" + sf.exprList(r) + ")"
	}
	return "VALUES " + strings.Join(rows, ", ")
}

func (sf stmtFormatter) fromSQL(f FromItem) string {
	switch f := f.(type) {
	case *TableRef:
		return sf.tableSQL(f)
	case *SubqueryRef:
		s := sf.subquerySQL(f.Query)
		if f.Alias != "" {
			s += " AS " + sf.ident(f.Alias) + sf.columnsSQL(f.Columns)
		}
		return s
	case *Values:
		s := "(" + sf.valuesSQL(f) + ")"
		if f.Alias != "" {
			s += " AS " + sf.ident(f.Alias) + sf.columnsSQL(f.Columns)
		}
		return s
	case *Join:
		return sf.joinSQL(f)
	case *TableFunc:
		return sf.tableFuncSQL(f) // table_func.go
	}
	return ""
}

func (sf stmtFormatter) joinSQL(j *Join) string {
	right := sf.fromSQL(j.Right)
	if _, nested := j.Right.(*Join); nested {
		right = "(" + right + ")"
	}
	switch {
	case j.Comma:
		return sf.fromSQL(j.Left) + ", " + right
	case j.Natural:
		return sf.fromSQL(j.Left) + " NATURAL " + j.Kind.String() + " " + right
	}
	s := sf.fromSQL(j.Left) + " " + j.Kind.String() + " " + right
	switch {
	case len(j.Using) > 0:
		s += " USING " + sf.columnsSQL(j.Using)
	case j.On != nil:
		s += " ON " + sf.expr(j.On)
	}
	return s
}

func (sf stmtFormatter) starSuffix(it SelectItem) string {
	s := ""
	if len(it.Exclude) > 0 {
		s += " EXCLUDE " + sf.columnsSQL(it.Exclude)
	}
	if len(it.Replace) > 0 {
		parts := make([]string, len(it.Replace))
		for i, r := range it.Replace {
			parts[i] = sf.expr(r.Expr) + " AS " + sf.ident(r.Alias)
		}
		s += " REPLACE (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
