package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// likeEscape finishes X [NOT] LIKE|ILIKE pattern ESCAPE esc (ESCAPE already consumed). As
// in DuckDB, it becomes a call of like_escape or ilike_escape (under NOT for the negated
// forms), so the AST needs no node of its own.
func (p *parser) likeEscape(start ast.Pos, kw token, x, pat ast.Expr, not bool) (ast.Expr, bool, error) {
	esc, err := p.concatExpr()
	if err != nil {
		return nil, true, err
	}
	name := "like_escape"
	if kw.upper() == "ILIKE" {
		name = "ilike_escape"
	}
	call := &ast.FuncCall{Pos: start, Name: name, Args: []ast.Expr{x, pat, esc}}
	return negateIf(start, call, not), false, nil
}

// patternMatch parses X [NOT] GLOB pattern and X [NOT] SIMILAR TO pattern (the keyword not
// consumed yet). As in DuckDB they become calls of glob and regexp_full_match.
func (p *parser) patternMatch(start ast.Pos, x ast.Expr, not bool) (ast.Expr, bool, error) {
	name := "glob"
	if p.next().upper() == "SIMILAR" {
		if err := p.expectKw("TO"); err != nil {
			return nil, true, err
		}
		name = "regexp_full_match"
	}
	pat, err := p.concatExpr()
	if err != nil {
		return nil, true, err
	}
	if name == "glob" && p.isKw("ESCAPE") {
		return nil, true, p.syntaxError(p.peek())
	}
	if p.isKw("ESCAPE") {
		return nil, true, p.notSupported(p.peek(), "SIMILAR TO ... ESCAPE")
	}
	call := &ast.FuncCall{Pos: start, Name: name, Args: []ast.Expr{x, pat}}
	return negateIf(start, call, not), false, nil
}

// negateIf wraps x in NOT when not is set.
func negateIf(pos ast.Pos, x ast.Expr, not bool) ast.Expr {
	if !not {
		return x
	}
	return &ast.Unary{Pos: pos, Op: "NOT", X: x}
}

// isTruth is x IS [NOT] TRUE|FALSE|UNKNOWN (kw the truth value): IS [NOT] NULL for
// UNKNOWN, otherwise x IS [NOT] DISTINCT FROM the boolean, which has the SQL meaning (a NULL
// x is neither TRUE nor FALSE).
func isTruth(x ast.Expr, kw token, not bool) ast.Expr {
	if kw.upper() == "UNKNOWN" {
		return &ast.IsNull{Pos: x.Position(), X: x, Not: not}
	}
	b := &ast.Literal{Pos: kw.pos, Kind: ast.LitBool, Text: kw.upper()}
	return &ast.IsDistinct{Pos: x.Position(), L: x, R: b, Not: !not}
}

// keywordFuncs are reserved words that are also function names when a ( follows, as in
// DuckDB: left(s, n), right(s, n).
var keywordFuncs = map[string]bool{"LEFT": true, "RIGHT": true}

// positionIn parses POSITION(search IN s), DuckDB's strpos(s, search). ok is false (and
// nothing is consumed) when the call has no IN: it is then an ordinary call.
func (p *parser) positionIn() (e ast.Expr, ok bool, err error) {
	start := p.i
	t := p.next() // POSITION
	p.next()      // (
	search, err := p.concatExpr()
	if err != nil || !p.acceptKw("IN") {
		p.i = start
		return nil, false, nil
	}
	s, err := p.concatExpr()
	if err != nil {
		return nil, true, err
	}
	return &ast.FuncCall{Pos: t.pos, Name: "strpos", Args: []ast.Expr{s, search}}, true, p.expectOp(")")
}
