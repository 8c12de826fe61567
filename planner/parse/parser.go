// Package parse is flightd's hand-written SQL parser for the DuckDB dialect: a lexer with
// line/column positions, recursive descent for statements and precedence climbing for
// expressions (Postgres/DuckDB precedence). It produces planner/ast trees and knows nothing
// about the catalog. Queries (joins, subqueries, CTEs, set operations, VALUES, window
// functions, grouping sets) and DDL/DML statements are parsed.
//
// Every construct outside the supported subset fails with a dberr.NotImplemented error that
// names it ("not supported yet: LATERAL"), so nothing is silently dropped; malformed SQL fails
// with a dberr.Parser error carrying the line and column.
package parse

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

// Parse parses exactly one SQL statement (a trailing semicolon is allowed).
func Parse(sql string) (ast.Statement, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	stmt, err := p.statement()
	if err != nil {
		return nil, err
	}
	for p.acceptOp(";") {
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.notSupported(t, "multiple statements")
	}
	return stmt, nil
}

// parser walks a token slice.
type parser struct {
	toks  []token
	i     int
	depth int // expression nesting, bounded by maxDepth
	// nparams counts the ? parameters seen so far.
	nparams int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isKw(kw string) bool { return p.peek().upper() == kw }

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) error {
	if !p.acceptKw(kw) {
		return p.syntaxError(p.peek())
	}
	return nil
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == op
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.syntaxError(p.peek())
	}
	return nil
}

// syntaxError reports an unexpected token the way DuckDB does.
func (p *parser) syntaxError(t token) error {
	if t.kind == tEOF {
		return dberr.New(dberr.Parser, "syntax error at end of input").At(t.pos.Line, t.pos.Column)
	}
	text := t.text
	switch t.kind {
	case tString:
		text = "'" + text + "'"
	case tQIdent:
		text = `"` + text + `"`
	}
	return dberr.New(dberr.Parser, "syntax error at or near %q", text).At(t.pos.Line, t.pos.Column)
}

// notSupported reports a recognised construct flightd does not support yet.
func (p *parser) notSupported(t token, what string) error {
	return dberr.NotSupported(what).At(t.pos.Line, t.pos.Column)
}

// unsupportedStatements maps leading keywords of statements we recognise but do not run.
var unsupportedStatements = map[string]string{
	"INSERT": "INSERT",
	"UPDATE": "UPDATE", "DELETE": "DELETE", "CREATE": "CREATE", "DROP": "DROP",
	"ALTER": "ALTER", "COPY": "COPY", "ATTACH": "ATTACH", "DETACH": "DETACH", "SET": "SET",
	"RESET": "RESET", "PRAGMA": "PRAGMA", "SHOW": "SHOW", "DESCRIBE": "DESCRIBE",
	"SUMMARIZE": "SUMMARIZE", "BEGIN": "transactions", "COMMIT": "transactions",
	"ROLLBACK": "transactions", "MERGE": "MERGE", "TRUNCATE": "TRUNCATE", "USE": "USE",
	"CALL": "CALL", "PREPARE": "PREPARE", "EXECUTE": "EXECUTE", "INSTALL": "INSTALL",
	"LOAD": "LOAD", "EXPORT": "EXPORT", "IMPORT": "IMPORT", "VACUUM": "VACUUM",
	"CHECKPOINT": "CHECKPOINT", "ANALYZE": "ANALYZE", "TABLE": "TABLE statement",
	"FROM": "FROM-first queries",
}

func (p *parser) statement() (ast.Statement, error) {
	t := p.peek()
	kw := t.upper()
	switch {
	case kw == "SELECT", kw == "WITH", kw == "VALUES", t.kind == tOp && t.text == "(":
		return p.query()
	case kw == "EXPLAIN":
		p.next()
		analyze := p.acceptKw("ANALYZE")
		q, err := p.statement()
		if err != nil {
			return nil, err
		}
		if _, ok := q.(*ast.Explain); ok {
			return nil, p.syntaxError(t)
		}
		return &ast.Explain{Pos: t.pos, Query: q, Analyze: analyze}, nil
	}
	if s, ok, err := p.ddlStatement(); ok {
		return s, err
	}
	if unsupportedStatements[kw] != "" {
		return nil, p.notSupported(t, unsupportedStatements[kw])
	}
	return nil, p.syntaxError(t)
}

// reserved are the keywords that cannot be bare identifiers (column names, aliases).
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "BY": true, "HAVING": true,
	"ORDER": true, "LIMIT": true, "OFFSET": true, "AND": true, "OR": true, "NOT": true,
	"AS": true, "ON": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true,
	"FULL": true, "CROSS": true, "OUTER": true, "NATURAL": true, "UNION": true,
	"EXCEPT": true, "INTERSECT": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true,
	"END": true, "IS": true, "NULL": true, "TRUE": true, "FALSE": true, "IN": true,
	"BETWEEN": true, "LIKE": true, "ILIKE": true, "DISTINCT": true, "ALL": true, "AT": true,
	"FOR": true, "WINDOW": true, "QUALIFY": true, "WITH": true, "USING": true,
	"LATERAL": true, "ASC": true, "DESC": true, "CAST": true, "TRY_CAST": true,
	"ISNULL": true, "NOTNULL": true, "SIMILAR": true, "ANY": true, "SOME": true,
	"EXISTS": true, "INTERVAL": true, "POSITIONAL": true, "ASOF": true, "ANTI": true,
	"SEMI": true, "TABLESAMPLE": true, "RETURNING": true, "INTO": true, "FILTER": true,
	"OVER": true, "ESCAPE": true, "COLLATE": true, "ARRAY": true, "LAMBDA": true,
}

// identifier consumes an identifier that may name a column or table.
func (p *parser) identifier() (string, error) {
	t := p.peek()
	switch {
	case t.kind == tQIdent:
		p.next()
		return t.text, nil
	case t.kind == tIdent && !reserved[t.upper()]:
		p.next()
		return t.text, nil
	}
	return "", p.syntaxError(t)
}

// isAliasStart reports whether the next token can start an implicit alias.
func (p *parser) isAliasStart() bool {
	t := p.peek()
	return t.kind == tQIdent || (t.kind == tIdent && !reserved[t.upper()])
}
