package ast

import (
	"strconv"
	"strings"
)

// Format renders e as SQL text in the style DuckDB uses for default column names:
// "(a + b)", "count_star()", "sum(x)", "CAST(x AS INTEGER)".
func Format(e Expr) string {
	f := formatter{}
	f.expr(e)
	return f.String()
}

// SQL renders e as SQL text that parses back to the same tree: identifiers are quoted and
// every operator is parenthesised.
func SQL(e Expr) string {
	f := formatter{faithful: true}
	f.expr(e)
	return f.String()
}

// formatter renders expressions; faithful output re-parses to the same tree, the other
// mode makes DuckDB-style column names.
type formatter struct {
	strings.Builder
	faithful bool
}

// QuoteIdent quotes an identifier with double quotes.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (b *formatter) expr(e Expr) {
	if b.queryExpr(e) {
		return
	}
	switch e := e.(type) {
	case *Literal:
		formatLiteral(b, e)
	case *ColumnRef:
		if !b.faithful {
			b.WriteString(strings.Join(e.Parts, "."))
			return
		}
		for i, p := range e.Parts {
			if i > 0 {
				b.WriteString(".")
			}
			b.WriteString(QuoteIdent(p))
		}
	case *Unary:
		b.unary(e)
	case *Binary:
		b.WriteString("(")
		b.expr(e.L)
		b.WriteString(" " + e.Op + " ")
		b.expr(e.R)
		b.WriteString(")")
	case *IsNull:
		b.WriteString("(")
		b.expr(e.X)
		b.WriteString(map[bool]string{false: " IS NULL)", true: " IS NOT NULL)"}[e.Not])
	case *Between:
		b.WriteString("(")
		b.expr(e.X)
		b.WriteString(map[bool]string{false: " BETWEEN ", true: " NOT BETWEEN "}[e.Not])
		b.expr(e.Lo)
		b.WriteString(" AND ")
		b.expr(e.Hi)
		b.WriteString(")")
	case *InList:
		b.in(e)
	case *Like:
		b.like(e)
	case *Case:
		b.caseExpr(e)
	case *Cast:
		b.cast(e)
	case *FuncCall:
		b.call(e)
	case *StructPack:
		b.structPack(e)
	case *Subscript:
		b.subscript(e)
	case *Param:
		if e.Index == 0 {
			b.WriteString("?")
		} else {
			b.WriteString("$" + strconv.Itoa(e.Index))
		}
	}
}

func formatLiteral(b *formatter, e *Literal) {
	quoted := "'" + strings.ReplaceAll(e.Text, "'", "''") + "'"
	switch {
	case e.Kind == LitString:
		b.WriteString(quoted)
	case e.Kind == LitDate && b.faithful:
		b.WriteString("DATE " + quoted)
	case e.Kind == LitTimestamp && b.faithful:
		b.WriteString("TIMESTAMP " + quoted)
	case e.Kind == LitDate:
		b.WriteString("CAST(" + quoted + " AS DATE)")
	case e.Kind == LitTimestamp:
		b.WriteString("CAST(" + quoted + " AS TIMESTAMP)")
	case e.Kind == LitBool && !b.faithful:
		b.WriteString(strings.ToLower(e.Text))
	case e.Kind == LitBool, e.Kind == LitNull:
		b.WriteString(strings.ToUpper(e.Text))
	default:
		b.WriteString(e.Text)
	}
}

func (b *formatter) list(es []Expr) {
	for i, x := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.expr(x)
	}
}

func (b *formatter) in(e *InList) {
	b.WriteString("(")
	b.expr(e.X)
	b.WriteString(map[bool]string{false: " IN (", true: " NOT IN ("}[e.Not])
	b.list(e.List)
	b.WriteString("))")
}

func (b *formatter) like(e *Like) {
	op := "LIKE"
	if e.ILike {
		op = "ILIKE"
	}
	if e.Not {
		op = "NOT " + op
	}
	if !b.faithful { // DuckDB names LIKE columns by its operator spelling
		op = map[string]string{"LIKE": "~~", "ILIKE": "~~*", "NOT LIKE": "!~~", "NOT ILIKE": "!~~*"}[op]
	}
	b.WriteString("(")
	b.expr(e.X)
	b.WriteString(" " + op + " ")
	b.expr(e.Pattern)
	b.WriteString(")")
}

func (b *formatter) caseExpr(e *Case) {
	b.WriteString("CASE")
	if e.Operand != nil {
		b.WriteString(" ")
		b.expr(e.Operand)
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN ")
		b.expr(w.Cond)
		b.WriteString(" THEN ")
		b.expr(w.Then)
	}
	if e.Else != nil {
		b.WriteString(" ELSE ")
		b.expr(e.Else)
	}
	b.WriteString(" END")
}

func (b *formatter) cast(e *Cast) {
	if e.Try {
		b.WriteString("TRY_CAST(")
	} else {
		b.WriteString("CAST(")
	}
	b.expr(e.X)
	b.WriteString(" AS " + e.Type.String() + ")")
}

func (b *formatter) call(e *FuncCall) {
	name := e.Name
	switch {
	case b.faithful:
		name = QuoteIdent(name)
	case name == "coalesce":
		name = "COALESCE"
	}
	switch {
	case e.Star && b.faithful:
		b.WriteString(name + "(*)")
	case e.Star:
		b.WriteString(name + "_star()")
	default:
		b.WriteString(name + "(")
		if e.Distinct {
			b.WriteString("DISTINCT ")
		}
		b.list(e.Args)
		if e.IgnoreNulls {
			b.WriteString(" IGNORE NULLS")
		}
		if len(e.OrderBy) > 0 {
			b.WriteString(" ")
			b.orderItems(e.OrderBy)
		}
		b.WriteString(")")
	}
	if e.Filter != nil {
		b.WriteString(" FILTER (WHERE ")
		b.expr(e.Filter)
		b.WriteString(")")
	}
	if e.Over != nil {
		b.over(e.Over)
	}
}

// over renders OVER name or OVER (spec).
func (b *formatter) over(w *WindowSpec) {
	if w.Name != "" && len(w.PartitionBy) == 0 && len(w.OrderBy) == 0 && w.Frame == nil {
		b.WriteString(" OVER ")
		b.ident(w.Name)
		return
	}
	b.WriteString(" OVER (")
	b.windowSpec(w)
	b.WriteString(")")
}

func (b *formatter) ident(name string) {
	if b.faithful {
		name = QuoteIdent(name)
	}
	b.WriteString(name)
}

// windowSpec renders the inside of a window specification.
func (b *formatter) windowSpec(w *WindowSpec) {
	sep := ""
	if w.Name != "" {
		b.ident(w.Name)
		sep = " "
	}
	if len(w.PartitionBy) > 0 {
		b.WriteString(sep + "PARTITION BY ")
		b.list(w.PartitionBy)
		sep = " "
	}
	if len(w.OrderBy) > 0 {
		b.WriteString(sep)
		b.orderItems(w.OrderBy)
		sep = " "
	}
	if f := w.Frame; f != nil {
		b.WriteString(sep + f.Unit + " ")
		if f.End != nil {
			b.WriteString("BETWEEN ")
		}
		b.frameBound(f.Start)
		if f.End != nil {
			b.WriteString(" AND ")
			b.frameBound(*f.End)
		}
	}
}

func (b *formatter) frameBound(fb FrameBoundSpec) {
	if fb.Offset != nil {
		b.expr(fb.Offset)
		b.WriteString(" ")
	}
	b.WriteString(fb.Kind)
}

// String renders the type name, e.g. "DECIMAL(10, 2)".
func (t TypeName) String() string {
	s := t.Name
	if len(t.Args) > 0 {
		parts := make([]string, len(t.Args))
		for i, a := range t.Args {
			parts[i] = strconv.Itoa(a)
		}
		s += "(" + strings.Join(parts, ", ") + ")"
	}
	if t.Fields != nil {
		s += structTypeString(t.Fields)
	}
	for _, d := range t.Dims {
		if d < 0 {
			s += "[]"
		} else {
			s += "[" + strconv.Itoa(d) + "]"
		}
	}
	return s
}

func (b *formatter) unary(e *Unary) {
	if e.Op == "NOT" || b.faithful {
		b.WriteString("(" + strings.TrimSpace(e.Op+" "))
		if e.Op == "NOT" {
			b.WriteString(" ")
		}
		b.expr(e.X)
		b.WriteString(")")
		return
	}
	if lit, ok := e.X.(*Literal); ok && e.Op == "-" && (lit.Kind == LitInt || lit.Kind == LitDecimal) {
		b.WriteString("-" + lit.Text)
		return
	}
	if e.Op == "-" {
		b.WriteString("(-(")
		b.expr(e.X)
		b.WriteString("))")
		return
	}
	b.expr(e.X)
}

// queryExpr renders the expressions that hold queries or are binder-only; false for others.
func (b *formatter) queryExpr(e Expr) bool {
	switch e := e.(type) {
	case *GroupAll, *OrderAll:
		b.WriteString("ALL")
	case *GroupingSets:
		b.groupingSets(e)
	case *BoundColumn:
		if b.faithful {
			b.WriteString(QuoteIdent(e.Name))
		} else {
			b.WriteString(e.Name)
		}
	case *Subquery:
		if b.faithful {
			b.WriteString("(" + StatementSQL(e.Query) + ")")
		} else {
			b.WriteString("(" + statementText(e.Query) + ")")
		}
	case *Exists:
		if e.Not {
			b.WriteString("(NOT ")
		}
		b.WriteString("EXISTS(" + StatementSQL(e.Query) + ")")
		if e.Not {
			b.WriteString(")")
		}
	case *InSubquery:
		b.WriteString("(")
		b.expr(e.X)
		b.WriteString(map[bool]string{false: " IN (", true: " NOT IN ("}[e.Not])
		b.WriteString(StatementSQL(e.Query) + "))")
	case *IsDistinct:
		b.WriteString("(")
		b.expr(e.L)
		b.WriteString(map[bool]string{false: " IS DISTINCT FROM ", true: " IS NOT DISTINCT FROM "}[e.Not])
		b.expr(e.R)
		b.WriteString(")")
	case *Interval:
		b.WriteString("INTERVAL '" + strings.ReplaceAll(e.Text, "'", "''") + "'")
		if e.Unit != "" {
			b.WriteString(" " + e.Unit)
		}
	default:
		return false
	}
	return true
}

func (b *formatter) groupingSets(e *GroupingSets) {
	b.WriteString(e.Kind + " (")
	if e.Kind != "GROUPING SETS" {
		b.list(e.Items)
		b.WriteString(")")
		return
	}
	for i, set := range e.Sets {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		b.list(set)
		b.WriteString(")")
	}
	b.WriteString(")")
}

// orderItems writes ORDER BY and its keys.
func (b *formatter) orderItems(items []OrderItem) {
	b.WriteString("ORDER BY ")
	for i, o := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.expr(o.Expr)
		if o.Desc {
			b.WriteString(" DESC")
		}
		if o.NullsFirst != nil {
			b.WriteString(map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[*o.NullsFirst])
		}
	}
}
