package ast

import (
	"strings"
)

// StatementSQL renders a statement as SQL that parses back to the same tree.
func StatementSQL(s Statement) string {
	switch s := s.(type) {
	case *Explain:
		return "EXPLAIN " + StatementSQL(s.Query)
	case *Select:
		return selectSQL(s)
	}
	return ""
}

func exprList(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = SQL(e)
	}
	return strings.Join(parts, ", ")
}

func selectSQL(s *Select) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	items := make([]string, len(s.Items))
	for i, it := range s.Items {
		items[i] = itemSQL(it)
	}
	b.WriteString(strings.Join(items, ", "))
	if s.From != nil {
		b.WriteString(" FROM " + tableSQL(s.From))
	}
	clause := func(kw string, e Expr) {
		if e != nil {
			b.WriteString(" " + kw + " " + SQL(e))
		}
	}
	clause("WHERE", s.Where)
	if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + exprList(s.GroupBy))
	}
	clause("HAVING", s.Having)
	if len(s.OrderBy) > 0 {
		keys := make([]string, len(s.OrderBy))
		for i, o := range s.OrderBy {
			keys[i] = orderSQL(o)
		}
		b.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	}
	clause("LIMIT", s.Limit)
	clause("OFFSET", s.Offset)
	return b.String()
}

func itemSQL(it SelectItem) string {
	switch {
	case it.Star && it.StarTable != "":
		return QuoteIdent(it.StarTable) + ".*"
	case it.Star:
		return "*"
	case it.Alias != "":
		return SQL(it.Expr) + " AS " + QuoteIdent(it.Alias)
	}
	return SQL(it.Expr)
}

func tableSQL(t *TableRef) string {
	parts := make([]string, len(t.Name))
	for i, p := range t.Name {
		parts[i] = QuoteIdent(p)
	}
	s := strings.Join(parts, ".")
	if t.Alias != "" {
		s += " AS " + QuoteIdent(t.Alias)
	}
	if t.At != nil {
		s += " AT (" + t.At.Unit.String() + " => " + SQL(t.At.Expr) + ")"
	}
	return s
}

func orderSQL(o OrderItem) string {
	s := SQL(o.Expr)
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
