package parse

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

// parserErrorAt is a dberr.Parser error at token t.
func (p *parser) parserErrorAt(t token, msg string) error {
	return dberr.New(dberr.Parser, "%s", msg).At(t.pos.Line, t.pos.Column)
}

// fromClause parses the items of FROM: comma-separated joined tables.
func (p *parser) fromClause() (ast.FromItem, error) {
	left, err := p.joinedTable()
	if err != nil {
		return nil, err
	}
	for p.isOp(",") {
		t := p.next()
		right, err := p.joinedTable()
		if err != nil {
			return nil, err
		}
		left = &ast.Join{Pos: t.pos, Kind: ast.JoinCross, Left: left, Right: right, Comma: true}
	}
	return left, nil
}

// joinedTable parses a table primary followed by any number of joins.
func (p *parser) joinedTable() (ast.FromItem, error) {
	left, err := p.tablePrimary()
	if err != nil {
		return nil, err
	}
	for {
		j, ok, err := p.joinOp()
		if err != nil {
			return nil, err
		}
		if !ok {
			return left, nil
		}
		if j.Right, err = p.tablePrimary(); err != nil {
			return nil, err
		}
		j.Left = left
		if err := p.joinCondition(j); err != nil {
			return nil, err
		}
		left = j
	}
}

// joinOp parses [NATURAL] [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] | CROSS |
// SEMI | ANTI] JOIN; ok is false when no join starts here.
func (p *parser) joinOp() (*ast.Join, bool, error) {
	t := p.peek()
	kw := t.upper()
	if !joinKeywords[kw] {
		return nil, false, nil
	}
	switch kw {
	case "POSITIONAL", "ASOF", "LATERAL":
		return nil, false, p.notSupported(t, kw+" JOIN")
	}
	p.next()
	j := &ast.Join{Pos: t.pos}
	if kw == "NATURAL" {
		j.Natural = true
		kw = p.next().upper()
	}
	switch kw {
	case "JOIN":
		return j, true, nil
	case "INNER":
	case "LEFT", "RIGHT", "FULL":
		j.Kind = map[string]ast.JoinKind{"LEFT": ast.JoinLeft, "RIGHT": ast.JoinRight, "FULL": ast.JoinFull}[kw]
		p.acceptKw("OUTER")
	case "CROSS":
		j.Kind = ast.JoinCross
	case "SEMI":
		j.Kind = ast.JoinSemi
	case "ANTI":
		j.Kind = ast.JoinAnti
	case "POSITIONAL", "ASOF", "LATERAL":
		return nil, false, p.notSupported(t, kw+" JOIN")
	default:
		return nil, false, p.syntaxError(p.toks[p.i-1])
	}
	return j, true, p.expectKw("JOIN")
}

// joinCondition parses ON expr or USING (cols) as the join kind requires.
func (p *parser) joinCondition(j *ast.Join) error {
	if j.Kind == ast.JoinCross || j.Natural {
		if p.isKw("ON") || p.isKw("USING") {
			return p.syntaxError(p.peek())
		}
		return nil
	}
	switch {
	case p.acceptKw("ON"):
		on, err := p.expr()
		j.On = on
		return err
	case p.isKw("USING"):
		p.next()
		cols, err := p.nameList()
		j.Using = cols
		return err
	}
	return p.syntaxError(p.peek())
}

// tablePrimary is a base table, a derived table, a VALUES list or a parenthesised join.
func (p *parser) tablePrimary() (ast.FromItem, error) {
	t := p.peek()
	switch {
	case p.isKw("LATERAL"):
		// DuckDB lets every subquery in FROM reference the items to its left, so LATERAL
		// changes nothing there (the binder decorrelates such subqueries, bind/lateral.go).
		p.next()
		if p.isTableFunc() { // LATERAL unnest(t.l): table_func.go
			return p.tableFunc()
		}
		if next := p.peek(); next.kind != tOp || next.text != "(" {
			return nil, p.notSupported(t, "LATERAL with anything but a subquery")
		}
		return p.parenFromItem()
	case t.kind == tOp && t.text == "(":
		return p.parenFromItem()
	case p.isKw("VALUES"):
		v, err := p.values()
		if err != nil {
			return nil, err
		}
		v.Alias, v.Columns, err = p.derivedAlias()
		return v, err
	case p.isTableFunc():
		return p.tableFunc() // table_func.go
	}
	return p.tableRef()
}

// parenFromItem parses ( query ) alias or ( joined tables ).
func (p *parser) parenFromItem() (ast.FromItem, error) {
	t := p.peek()
	next := p.peekAt(1)
	if next.upper() == "SELECT" || next.upper() == "WITH" || next.upper() == "VALUES" || (next.kind == tOp && next.text == "(") {
		q, err := p.parenQuery()
		if err != nil {
			return nil, err
		}
		ref := &ast.SubqueryRef{Pos: t.pos, Query: q}
		if ref.Alias, ref.Columns, err = p.derivedAlias(); err != nil {
			return nil, err
		}
		return ref, nil
	}
	p.next()
	item, err := p.fromClause()
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.isKw("AS") || p.isAliasStart() {
		return nil, p.notSupported(p.peek(), "aliases on parenthesised joins")
	}
	return item, nil
}

// derivedAlias parses [AS] alias [(columns)] after a derived table.
func (p *parser) derivedAlias() (string, []string, error) {
	var alias string
	var err error
	switch {
	case p.acceptKw("AS"):
		if alias, err = p.identifier(); err != nil {
			return "", nil, err
		}
	case p.isAliasStart():
		alias, _ = p.identifier()
	default:
		return "", nil, nil
	}
	if !p.isOp("(") {
		return alias, nil, nil
	}
	cols, err := p.nameList()
	return alias, cols, err
}
