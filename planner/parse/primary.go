package parse

import (
	"strings"

	"github.com/flightd/flightd/planner/ast"
)

// keywordOrName parses expressions that start with a word: keyword literals, CASE, CAST,
// typed literals (DATE '...'), function calls and column references.
func (p *parser) keywordOrName() (ast.Expr, error) {
	t := p.peek()
	switch kw := t.upper(); kw {
	case "TRUE", "FALSE":
		p.next()
		return &ast.Literal{Pos: t.pos, Kind: ast.LitBool, Text: kw}, nil
	case "NULL":
		p.next()
		return &ast.Literal{Pos: t.pos, Kind: ast.LitNull, Text: kw}, nil
	case "CASE":
		return p.caseExpr()
	case "CAST", "TRY_CAST":
		return p.castExpr()
	case "DATE", "TIMESTAMP", "TIMESTAMPTZ":
		if p.peekAt(1).kind == tString {
			p.next()
			s := p.next()
			switch kw {
			case "DATE":
				return &ast.Literal{Pos: t.pos, Kind: ast.LitDate, Text: s.text}, nil
			case "TIMESTAMP":
				return &ast.Literal{Pos: t.pos, Kind: ast.LitTimestamp, Text: s.text}, nil
			}
			lit := &ast.Literal{Pos: s.pos, Kind: ast.LitString, Text: s.text}
			return &ast.Cast{Pos: t.pos, X: lit, Type: ast.TypeName{Name: kw}}, nil
		}
	case "INTERVAL":
		return nil, p.notSupported(t, "INTERVAL")
	case "EXISTS":
		return nil, p.notSupported(t, "EXISTS subqueries")
	case "ARRAY":
		return nil, p.notSupported(t, "ARRAY")
	}
	if reserved[t.upper()] {
		return nil, p.syntaxError(t)
	}
	return p.nameExpr()
}

// nameExpr parses a (possibly qualified) column reference or a function call.
func (p *parser) nameExpr() (ast.Expr, error) {
	t := p.peek()
	name, err := p.identifier()
	if err != nil {
		return nil, err
	}
	if p.isOp("(") {
		return p.funcCall(t, name)
	}
	ref := &ast.ColumnRef{Pos: t.pos, Parts: []string{name}}
	for p.acceptOp(".") {
		if p.isOp("*") {
			return nil, p.notSupported(p.peek(), "qualified * outside the select list")
		}
		part, err := p.identifier()
		if err != nil {
			return nil, err
		}
		if p.isOp("(") {
			return nil, p.notSupported(t, "qualified function names")
		}
		ref.Parts = append(ref.Parts, part)
	}
	return ref, nil
}

func (p *parser) funcCall(t token, name string) (ast.Expr, error) {
	p.next() // (
	call := &ast.FuncCall{Pos: t.pos, Name: strings.ToLower(name)}
	switch {
	case p.acceptOp("*"):
		call.Star = true
	case p.isOp(")"):
	default:
		if p.acceptKw("DISTINCT") {
			call.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		args, err := p.exprList()
		if err != nil {
			return nil, err
		}
		call.Args = args
		if p.isKw("ORDER") {
			return nil, p.notSupported(p.peek(), "ORDER BY inside aggregates")
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	switch {
	case p.isKw("FILTER"):
		return nil, p.notSupported(p.peek(), "aggregate FILTER")
	case p.isKw("OVER"):
		return nil, p.notSupported(p.peek(), "window functions")
	case p.isKw("WITHIN"):
		return nil, p.notSupported(p.peek(), "WITHIN GROUP")
	}
	return call, nil
}

func (p *parser) caseExpr() (ast.Expr, error) {
	t := p.next() // CASE
	c := &ast.Case{Pos: t.pos}
	var err error
	if !p.isKw("WHEN") {
		if c.Operand, err = p.expr(); err != nil {
			return nil, err
		}
	}
	for p.acceptKw("WHEN") {
		var w ast.When
		if w.Cond, err = p.expr(); err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		if w.Then, err = p.expr(); err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		return nil, p.syntaxError(p.peek())
	}
	if p.acceptKw("ELSE") {
		if c.Else, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return c, p.expectKw("END")
}

func (p *parser) castExpr() (ast.Expr, error) {
	t := p.next()
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	tn, err := p.typeName()
	if err != nil {
		return nil, err
	}
	return &ast.Cast{Pos: t.pos, X: x, Type: tn, Try: t.upper() == "TRY_CAST"}, p.expectOp(")")
}
