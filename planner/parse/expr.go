package parse

import (
	"strconv"
	"strings"

	"github.com/flightd/flightd/planner/ast"
)

// maxDepth bounds expression nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

// expr parses a full expression. Precedence, lowest first: OR, AND, NOT, IS, comparison,
// BETWEEN/IN/LIKE, ||, + -, * / %, ^, unary + -, ::.
func (p *parser) expr() (ast.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.orExpr()
}

// enter counts one level of expression nesting and fails past maxDepth.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.notSupported(p.peek(), "expressions nested this deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) orExpr() (ast.Expr, error) {
	return p.leftAssoc(p.andExpr, func() (string, bool) {
		return "OR", p.acceptKw("OR")
	})
}

func (p *parser) andExpr() (ast.Expr, error) {
	return p.leftAssoc(p.notExpr, func() (string, bool) {
		return "AND", p.acceptKw("AND")
	})
}

// leftAssoc parses operand {op operand}, building left-deep Binary nodes.
func (p *parser) leftAssoc(operand func() (ast.Expr, error), op func() (string, bool)) (ast.Expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		name, ok := op()
		if !ok {
			return l, nil
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &ast.Binary{Pos: l.Position(), Op: name, L: l, R: r}
	}
}

func (p *parser) notExpr() (ast.Expr, error) {
	t := p.peek()
	if p.acceptKw("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &ast.Unary{Pos: t.pos, Op: "NOT", X: x}, nil
	}
	return p.isExpr()
}

func (p *parser) isExpr() (ast.Expr, error) {
	x, err := p.cmpExpr()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.acceptKw("ISNULL"):
			x = &ast.IsNull{Pos: x.Position(), X: x}
		case p.acceptKw("NOTNULL"):
			x = &ast.IsNull{Pos: x.Position(), X: x, Not: true}
		case p.acceptKw("IS"):
			not := p.acceptKw("NOT")
			switch {
			case p.acceptKw("NULL"):
				x = &ast.IsNull{Pos: x.Position(), X: x, Not: not}
			case p.acceptKw("DISTINCT"):
				if err := p.expectKw("FROM"); err != nil {
					return nil, err
				}
				r, err := p.cmpExpr()
				if err != nil {
					return nil, err
				}
				x = &ast.IsDistinct{Pos: x.Position(), L: x, R: r, Not: not}
			case p.isKw("TRUE"), p.isKw("FALSE"), p.isKw("UNKNOWN"):
				x = isTruth(x, p.next(), not)
			default:
				return nil, p.syntaxError(p.peek())
			}
		default:
			return x, nil
		}
	}
}

var comparisonOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) cmpExpr() (ast.Expr, error) {
	return p.leftAssoc(p.predExpr, func() (string, bool) {
		t := p.peek()
		if t.kind == tOp && comparisonOps[t.text] {
			p.next()
			return t.text + p.quantifier(), true
		}
		return "", false
	})
}

// quantifier consumes ANY, SOME or ALL after a comparison operator when a parenthesized
// operand follows and returns " ANY" or " ALL" (SOME is ANY); otherwise "". The binder reads
// `x op ANY (subquery)` as an ast.Binary whose Op is "op ANY" (quantified.go there).
func (p *parser) quantifier() string {
	q := p.peek().upper()
	if (q != "ANY" && q != "SOME" && q != "ALL") || p.peekAt(1).text != "(" {
		return ""
	}
	p.next()
	if q == "SOME" {
		q = "ANY"
	}
	return " " + q
}

// predExpr parses BETWEEN, IN and LIKE and their NOT forms.
func (p *parser) predExpr() (ast.Expr, error) {
	x, err := p.concatExpr()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		not := false
		if t.upper() == "NOT" {
			switch p.peekAt(1).upper() {
			case "BETWEEN", "IN", "LIKE", "ILIKE", "SIMILAR", "GLOB":
				p.next()
				not = true
			default:
				return x, nil
			}
		}
		var done bool
		x, done, err = p.predicateTail(x.Position(), x, not)
		if err != nil || done {
			return x, err
		}
	}
}

// predicateTail parses the part of a predicate after its left operand (and NOT).
func (p *parser) predicateTail(start ast.Pos, x ast.Expr, not bool) (ast.Expr, bool, error) {
	kwTok := p.peek()
	switch kwTok.upper() {
	case "BETWEEN":
		p.next()
		lo, err := p.concatExpr()
		if err != nil {
			return nil, true, err
		}
		if err := p.expectKw("AND"); err != nil {
			return nil, true, err
		}
		hi, err := p.concatExpr()
		if err != nil {
			return nil, true, err
		}
		return &ast.Between{Pos: start, X: x, Lo: lo, Hi: hi, Not: not}, false, nil
	case "IN":
		p.next()
		if p.isOp("(") && isQueryStart(p.peekAt(1)) {
			q, err := p.parenQuery()
			if err != nil {
				return nil, true, err
			}
			return &ast.InSubquery{Pos: start, X: x, Query: q, Not: not}, false, nil
		}
		list, err := p.inList()
		if err != nil {
			return nil, true, err
		}
		return &ast.InList{Pos: start, X: x, List: list, Not: not}, false, nil
	case "LIKE", "ILIKE":
		p.next()
		pat, err := p.concatExpr()
		if err != nil {
			return nil, true, err
		}
		if p.acceptKw("ESCAPE") {
			return p.likeEscape(start, kwTok, x, pat, not)
		}
		return &ast.Like{Pos: start, X: x, Pattern: pat, Not: not, ILike: kwTok.upper() == "ILIKE"}, false, nil
	case "SIMILAR", "GLOB":
		return p.patternMatch(start, x, not)
	}
	if not {
		return nil, true, p.syntaxError(kwTok)
	}
	return x, true, nil
}

func (p *parser) inList() ([]ast.Expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	list, err := p.exprList()
	if err != nil {
		return nil, err
	}
	return list, p.expectOp(")")
}

// concatExpr parses DuckDB's "other operator" level, left-associative, between + - and
// the comparisons: || (concatenation) and the list operators && (overlap), @> (contains)
// and <@ (contained by).
func (p *parser) concatExpr() (ast.Expr, error) {
	return p.leftAssoc(p.addExpr, func() (string, bool) {
		for _, op := range []string{"||", "&&", "@>", "<@"} {
			if p.acceptOp(op) {
				return op, true
			}
		}
		return "", false
	})
}

func (p *parser) addExpr() (ast.Expr, error) {
	return p.leftAssoc(p.mulExpr, func() (string, bool) {
		for _, op := range []string{"+", "-"} {
			if p.acceptOp(op) {
				return op, true
			}
		}
		return "", false
	})
}

func (p *parser) mulExpr() (ast.Expr, error) {
	return p.leftAssoc(p.powExpr, func() (string, bool) {
		for _, op := range []string{"*", "//", "/", "%"} {
			if op == "%" && p.percentSuffix() {
				return "", false
			}
			if p.acceptOp(op) {
				return op, true
			}
		}
		return "", false
	})
}

func (p *parser) powExpr() (ast.Expr, error) {
	return p.leftAssoc(p.unaryExpr, func() (string, bool) { return "^", p.acceptOp("^") })
}

func (p *parser) unaryExpr() (ast.Expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+") {
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return &ast.Unary{Pos: t.pos, Op: t.text, X: x}, nil
	}
	return p.postfixExpr()
}

func (p *parser) postfixExpr() (ast.Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case p.acceptOp("::"):
			tn, err := p.typeName()
			if err != nil {
				return nil, err
			}
			x = &ast.Cast{Pos: x.Position(), X: x, Type: tn}
		case p.isOp("[") || p.isOp("."):
			next, ok, err := p.fieldAccess(x)
			if err != nil || !ok {
				return x, err
			}
			x = next
		case p.isKw("COLLATE"):
			return nil, p.notSupported(t, "COLLATE")
		default:
			return x, nil
		}
	}
}

// typeName parses a SQL type: NAME [words] [(n, ...)].
func (p *parser) typeName() (ast.TypeName, error) {
	t := p.peek()
	if t.kind != tIdent {
		return ast.TypeName{}, p.syntaxError(t)
	}
	p.next()
	tn := ast.TypeName{Name: t.upper()}
	switch {
	case (tn.Name == "STRUCT" || tn.Name == "ROW") && p.isOp("("):
		tn.Name = "STRUCT"
		if err := p.structTypeFields(&tn); err != nil {
			return tn, err
		}
		return tn, p.arrayDims(&tn)
	case tn.Name == "DOUBLE" && p.acceptKw("PRECISION"):
	case tn.Name == "CHARACTER" && p.acceptKw("VARYING"):
		tn.Name = "VARCHAR"
	case tn.Name == "TIMESTAMP" && (p.isKw("WITH") || p.isKw("WITHOUT")):
		with := p.next().upper() == "WITH"
		if err := p.expectKw("TIME"); err != nil {
			return tn, err
		}
		if err := p.expectKw("ZONE"); err != nil {
			return tn, err
		}
		if with {
			tn.Name = "TIMESTAMPTZ"
		}
	}
	if p.acceptOp("(") {
		for {
			n := p.peek()
			if n.kind != tInt {
				return tn, p.syntaxError(n)
			}
			p.next()
			v, err := strconv.Atoi(n.text)
			if err != nil {
				return tn, p.syntaxError(n)
			}
			tn.Args = append(tn.Args, v)
			if !p.acceptOp(",") {
				break
			}
		}
		if err := p.expectOp(")"); err != nil {
			return tn, err
		}
	}
	return tn, p.arrayDims(&tn)
}

func (p *parser) primary() (ast.Expr, error) {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return &ast.Literal{Pos: t.pos, Kind: ast.LitInt, Text: t.text}, nil
	case tDecimal:
		p.next()
		return &ast.Literal{Pos: t.pos, Kind: ast.LitDecimal, Text: t.text}, nil
	case tString:
		p.next()
		return &ast.Literal{Pos: t.pos, Kind: ast.LitString, Text: t.text}, nil
	case tParam:
		return p.param()
	case tQIdent:
		return p.nameExpr()
	case tOp:
		return p.parenExpr()
	case tIdent:
		return p.keywordOrName()
	}
	return nil, p.syntaxError(t)
}

func (p *parser) param() (ast.Expr, error) {
	t := p.next()
	if t.text == "?" {
		p.nparams++
		return &ast.Param{Pos: t.pos, Ordinal: p.nparams}, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(t.text, "$"))
	if err != nil || n < 1 {
		return nil, p.syntaxError(t)
	}
	return &ast.Param{Pos: t.pos, Index: n}, nil
}

func (p *parser) parenExpr() (ast.Expr, error) {
	t := p.peek()
	if t.text != "(" {
		switch t.text {
		case "[":
			return p.listLiteral()
		case "{":
			return p.structLiteral()
		}
		return nil, p.syntaxError(t)
	}
	p.next()
	if isQueryStart(p.peek()) {
		p.i-- // back to "("
		q, err := p.parenQuery()
		if err != nil {
			return nil, err
		}
		return &ast.Subquery{Pos: t.pos, Query: q}, nil
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.acceptOp(",") {
		// (a, b) is row(a, b), DuckDB's unnamed struct.
		rest, err := p.exprList()
		if err != nil {
			return nil, err
		}
		row := &ast.FuncCall{Pos: t.pos, Name: "row", Args: append([]ast.Expr{x}, rest...)}
		return row, p.expectOp(")")
	}
	return x, p.expectOp(")")
}

// percentSuffix reports whether the next token is a "%" that ends the expression, as in
// LIMIT 10%, rather than a modulus operator.
func (p *parser) percentSuffix() bool {
	if !p.isOp("%") {
		return false
	}
	next := p.peekAt(1)
	return next.kind == tEOF || (next.kind == tOp && (next.text == ";" || next.text == ")")) || next.upper() == "OFFSET"
}

// isQueryStart reports whether t starts a query inside parentheses.
func isQueryStart(t token) bool {
	switch t.upper() {
	case "SELECT", "WITH", "VALUES":
		return t.kind == tIdent
	}
	return false
}
