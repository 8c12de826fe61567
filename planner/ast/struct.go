package ast

import "strings"

// StructPack is a struct value built from named fields: the literal {'a': x, 'b': y} and
// the call struct_pack(a := x, b := y) (DuckDB's two spellings of one thing).
type StructPack struct {
	Pos    Pos
	Names  []string
	Values []Expr
}

// Subscript is x.name (Field set: a struct field) or x[Index] (a struct field by name or
// position, or a list element): DuckDB's postfix forms of struct_extract and
// array_extract.
type Subscript struct {
	Pos   Pos
	X     Expr
	Field string // x.name; "" for x[Index]
	Index Expr   // x[Index]; nil for x.name
}

func (e *Subscript) expr() {}

// Position implements Expr.
func (e *Subscript) Position() Pos { return e.Pos }

// subscript renders (x).name and x[i] as DuckDB names such columns.
func (b *formatter) subscript(e *Subscript) {
	if e.Index != nil {
		b.expr(e.X)
		b.WriteString("[")
		b.expr(e.Index)
		b.WriteString("]")
		return
	}
	b.WriteString("(")
	b.expr(e.X)
	b.WriteString(").")
	if b.faithful {
		b.WriteString(QuoteIdent(e.Field))
		return
	}
	b.WriteString(e.Field)
}

// StructField is one field of a STRUCT(name type, ...) type name.
type StructField struct {
	Name string
	Type TypeName
}

func (e *StructPack) expr() {}

// Position implements Expr.
func (e *StructPack) Position() Pos { return e.Pos }

// structPack renders {'a': x, ...}; DuckDB names such a column struct_pack(a := x, ...).
func (b *formatter) structPack(e *StructPack) {
	if !b.faithful {
		b.WriteString("struct_pack(")
		for i, n := range e.Names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n + " := ")
			b.expr(e.Values[i])
		}
		b.WriteString(")")
		return
	}
	b.WriteString("{")
	for i, n := range e.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + strings.ReplaceAll(n, "'", "''") + "': ")
		b.expr(e.Values[i])
	}
	b.WriteString("}")
}

// structTypeString renders the fields of STRUCT(name type, ...).
func structTypeString(fields []StructField) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = QuoteIdent(f.Name) + " " + f.Type.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
