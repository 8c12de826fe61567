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
		return p.interval()
	case "EXTRACT":
		if p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			return p.extract()
		}
	case "SUBSTRING":
		if p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			if e, ok, err := p.substringFrom(); ok || err != nil {
				return e, err
			}
		}
	case "POSITION":
		if p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			if e, ok, err := p.positionIn(); ok || err != nil {
				return e, err
			}
		}
	case "CURRENT_DATE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP":
		if p.peekAt(1).kind != tOp || p.peekAt(1).text != "(" {
			p.next()
			name := strings.ToLower(kw)
			if kw == "LOCALTIMESTAMP" {
				name = "current_timestamp"
			}
			return &ast.FuncCall{Pos: t.pos, Name: name}, nil
		}
	case "EXISTS":
		p.next()
		q, err := p.parenQuery()
		if err != nil {
			return nil, err
		}
		return &ast.Exists{Pos: t.pos, Query: q}, nil
	case "ARRAY":
		return nil, p.notSupported(t, "ARRAY")
	}
	if reserved[t.upper()] {
		if keywordFuncs[t.upper()] && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
			p.next()
			return p.funcCall(t, t.upper())
		}
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

// nullTreatment parses IGNORE NULLS or RESPECT NULLS after a function's arguments.
func (p *parser) nullTreatment(call *ast.FuncCall) {
	if (!p.isKw("IGNORE") && !p.isKw("RESPECT")) || p.peekAt(1).upper() != "NULLS" {
		return
	}
	call.IgnoreNulls = p.isKw("IGNORE")
	p.i += 2
}

func (p *parser) funcCall(t token, name string) (ast.Expr, error) {
	p.next() // (
	call := &ast.FuncCall{Pos: t.pos, Name: strings.ToLower(name)}
	switch {
	case p.acceptOp("*"):
		call.Star = true
	case p.isOp(")"):
	case p.isNamedArg() && call.Name == "struct_pack":
		return p.structPackArgs(t)
	case p.isNamedArg():
		return nil, p.notSupported(p.peek(), "named arguments of "+call.Name)
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
		p.nullTreatment(call)
		if err := p.orderBy(&call.OrderBy); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.isKw("FILTER") && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(" {
		p.i += 2
		p.acceptKw("WHERE")
		f, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		call.Filter = f
	}
	if p.isKw("OVER") {
		spec, err := p.over()
		if err != nil {
			return nil, err
		}
		call.Over = spec
	}
	switch {
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

// intervalUnits are the units INTERVAL accepts after its quantity (singular and plural).
var intervalUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH", "DAY": "DAY",
	"DAYS": "DAY", "HOUR": "HOUR", "HOURS": "HOUR", "MINUTE": "MINUTE", "MINUTES": "MINUTE",
	"SECOND": "SECOND", "SECONDS": "SECOND", "WEEK": "WEEK", "WEEKS": "WEEK",
	"MILLISECOND": "MILLISECOND", "MILLISECONDS": "MILLISECOND",
	"MICROSECOND": "MICROSECOND", "MICROSECONDS": "MICROSECOND",
}

// interval parses INTERVAL 'text' [unit], INTERVAL n unit and INTERVAL (expr) unit with a
// constant number.
func (p *parser) interval() (ast.Expr, error) {
	t := p.next() // INTERVAL
	q := p.peek()
	var text string
	switch q.kind {
	case tString, tInt, tDecimal:
		p.next()
		text = q.text
	default:
		return nil, p.notSupported(q, "INTERVAL with a non-constant quantity")
	}
	iv := &ast.Interval{Pos: t.pos, Text: text}
	if u, ok := intervalUnits[p.peek().upper()]; ok && p.peek().kind == tIdent {
		p.next()
		iv.Unit = u
	} else if q.kind != tString {
		return nil, p.syntaxError(p.peek())
	}
	return iv, nil
}

// extract parses EXTRACT(field FROM x) into date_part('field', x).
func (p *parser) extract() (ast.Expr, error) {
	t := p.next() // EXTRACT
	p.next()      // (
	f := p.next()
	if f.kind != tIdent && f.kind != tString {
		return nil, p.syntaxError(f)
	}
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	field := &ast.Literal{Pos: f.pos, Kind: ast.LitString, Text: strings.ToUpper(f.text)} // DuckDB names the column date_part('YEAR', x)
	return &ast.FuncCall{Pos: t.pos, Name: "date_part", Args: []ast.Expr{field, x}}, p.expectOp(")")
}

// substringFrom parses the standard SQL form SUBSTRING(x FROM start [FOR length]) (and
// SUBSTRING(x FOR length)) into substring(x, start[, length]). ok is false, with nothing
// consumed, for the plain function call form SUBSTRING(x, start[, length]).
func (p *parser) substringFrom() (e ast.Expr, ok bool, err error) {
	start := p.i
	t := p.next() // SUBSTRING
	p.next()      // (
	x, err := p.expr()
	if err != nil || (!p.isKw("FROM") && !p.isKw("FOR")) {
		p.i = start
		return nil, false, nil
	}
	args := []ast.Expr{x}
	if p.acceptKw("FROM") {
		from, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		args = append(args, from)
	} else {
		args = append(args, &ast.Literal{Pos: t.pos, Kind: ast.LitInt, Text: "1"})
	}
	if p.acceptKw("FOR") {
		n, err := p.expr()
		if err != nil {
			return nil, true, err
		}
		args = append(args, n)
	}
	return &ast.FuncCall{Pos: t.pos, Name: "substring", Args: args}, true, p.expectOp(")")
}
