package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// structLiteral parses DuckDB's struct literal {'a': x, b: y}: keys are strings or names.
func (p *parser) structLiteral() (ast.Expr, error) {
	start := p.next() // "{"
	sp := &ast.StructPack{Pos: start.pos}
	if p.isOp("}") {
		return nil, p.parserErrorAt(p.peek(), "a struct literal needs at least one field")
	}
	for {
		k := p.next()
		if k.kind != tString && k.kind != tIdent && k.kind != tQIdent {
			return nil, p.syntaxError(k)
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		sp.Names = append(sp.Names, k.text)
		sp.Values = append(sp.Values, v)
		if !p.acceptOp(",") {
			break
		}
		if p.isOp("}") { // trailing comma
			break
		}
	}
	return sp, p.expectOp("}")
}

// isNamedArg reports whether a named argument, name := value, starts here.
func (p *parser) isNamedArg() bool {
	k := p.peek().kind
	return (k == tIdent || k == tQIdent) && p.peekAt(1).kind == tOp && p.peekAt(1).text == ":="
}

// structPackArgs parses the named arguments of struct_pack(a := x, ...) after its "(";
// t is the function name's token.
func (p *parser) structPackArgs(t token) (ast.Expr, error) {
	sp := &ast.StructPack{Pos: t.pos}
	for {
		if !p.isNamedArg() {
			return nil, p.parserErrorAt(p.peek(), "struct_pack needs named arguments (name := value)")
		}
		name := p.next().text
		p.next() // :=
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		sp.Names = append(sp.Names, name)
		sp.Values = append(sp.Values, v)
		if !p.acceptOp(",") {
			break
		}
	}
	return sp, p.expectOp(")")
}

// fieldAccess parses the postfix forms after an expression: .name (struct field) and
// [index] (struct field by name or position, list element), resolved by the binder from
// the operand's type. [a:b] slices are array_slice calls (slice.go).
func (p *parser) fieldAccess(x ast.Expr) (ast.Expr, bool, error) {
	switch {
	case p.isOp(".") && (p.peekAt(1).kind == tIdent || p.peekAt(1).kind == tQIdent):
		p.next()
		f := p.next()
		return &ast.Subscript{Pos: x.Position(), X: x, Field: f.text}, true, nil
	case p.isOp("["):
		p.next()
		if p.isOp(":") {
			out, err := p.slice(x, nil) // slice.go
			return out, true, err
		}
		idx, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		if p.isOp(":") {
			out, err := p.slice(x, idx)
			return out, true, err
		}
		if err := p.expectOp("]"); err != nil {
			return nil, true, err
		}
		return &ast.Subscript{Pos: x.Position(), X: x, Index: idx}, true, nil
	}
	return x, false, nil
}

// structTypeFields parses the field list of STRUCT(name type, ...) after "STRUCT".
func (p *parser) structTypeFields(tn *ast.TypeName) error {
	if err := p.expectOp("("); err != nil {
		return err
	}
	tn.Fields = []ast.StructField{}
	for {
		n, err := p.identifier()
		if err != nil {
			return err
		}
		ft, err := p.typeName()
		if err != nil {
			return err
		}
		tn.Fields = append(tn.Fields, ast.StructField{Name: n, Type: ft})
		if !p.acceptOp(",") {
			break
		}
	}
	return p.expectOp(")")
}
