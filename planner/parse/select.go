package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

func (p *parser) selectStmt() (ast.Statement, error) {
	start := p.next() // SELECT
	s := &ast.Select{Pos: start.pos}
	if p.acceptKw("DISTINCT") {
		if p.isKw("ON") {
			return nil, p.notSupported(p.peek(), "DISTINCT ON")
		}
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	items, err := p.selectItems()
	if err != nil {
		return nil, err
	}
	s.Items = items
	if p.isKw("INTO") {
		return nil, p.notSupported(p.peek(), "SELECT INTO")
	}
	if p.acceptKw("FROM") {
		if s.From, err = p.tableRef(); err != nil {
			return nil, err
		}
	}
	if err := p.selectClauses(s); err != nil {
		return nil, err
	}
	if err := p.setOperation(); err != nil {
		return nil, err
	}
	if err := p.orderBy(s); err != nil {
		return nil, err
	}
	return s, p.limitOffset(s)
}

// selectClauses parses WHERE, GROUP BY and HAVING, and rejects WINDOW and QUALIFY.
func (p *parser) selectClauses(s *ast.Select) error {
	var err error
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return err
		}
	}
	if p.isKw("GROUP") {
		if s.GroupBy, err = p.groupBy(); err != nil {
			return err
		}
	}
	if p.acceptKw("HAVING") {
		if s.Having, err = p.expr(); err != nil {
			return err
		}
	}
	switch {
	case p.isKw("WINDOW"):
		return p.notSupported(p.peek(), "WINDOW clause")
	case p.isKw("QUALIFY"):
		return p.notSupported(p.peek(), "QUALIFY")
	}
	return nil
}

func (p *parser) groupBy() ([]ast.Expr, error) {
	p.next() // GROUP
	if err := p.expectKw("BY"); err != nil {
		return nil, err
	}
	switch {
	case p.isKw("ALL"):
		return nil, p.notSupported(p.peek(), "GROUP BY ALL")
	case p.isKw("ROLLUP"), p.isKw("CUBE"), p.isKw("GROUPING"):
		return nil, p.notSupported(p.peek(), "GROUP BY "+p.peek().upper())
	}
	return p.exprList()
}

func (p *parser) setOperation() error {
	for _, kw := range []string{"UNION", "EXCEPT", "INTERSECT"} {
		if p.isKw(kw) {
			return p.notSupported(p.peek(), kw)
		}
	}
	return nil
}

func (p *parser) exprList() ([]ast.Expr, error) {
	var out []ast.Expr
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) selectItems() ([]ast.SelectItem, error) {
	var items []ast.SelectItem
	for {
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.acceptOp(",") {
			return items, nil
		}
		if p.isKw("FROM") { // DuckDB allows a trailing comma
			return items, nil
		}
	}
}

func (p *parser) selectItem() (ast.SelectItem, error) {
	t := p.peek()
	if p.acceptOp("*") {
		return p.starModifiers(ast.SelectItem{Pos: t.pos, Star: true})
	}
	// t.* : an identifier followed by '.' '*'.
	if (t.kind == tIdent || t.kind == tQIdent) && p.peekAt(1).kind == tOp && p.peekAt(1).text == "." &&
		p.peekAt(2).kind == tOp && p.peekAt(2).text == "*" {
		p.i += 3
		return p.starModifiers(ast.SelectItem{Pos: t.pos, Star: true, StarTable: t.text})
	}
	e, err := p.expr()
	if err != nil {
		return ast.SelectItem{}, err
	}
	it := ast.SelectItem{Pos: t.pos, Expr: e}
	if p.acceptKw("AS") {
		if it.Alias, err = p.aliasName(); err != nil {
			return ast.SelectItem{}, err
		}
	} else if p.isAliasStart() {
		it.Alias, _ = p.identifier()
	}
	return it, nil
}

// aliasName reads the name after AS; any keyword is allowed there, as in DuckDB.
func (p *parser) aliasName() (string, error) {
	t := p.peek()
	if t.kind == tIdent || t.kind == tQIdent {
		p.next()
		return t.text, nil
	}
	if t.kind == tString {
		p.next()
		return t.text, nil
	}
	return "", p.syntaxError(t)
}

func (p *parser) starModifiers(it ast.SelectItem) (ast.SelectItem, error) {
	for _, kw := range []string{"EXCLUDE", "REPLACE", "RENAME", "COLUMNS"} {
		if p.isKw(kw) {
			return it, p.notSupported(p.peek(), "* "+kw)
		}
	}
	return it, nil
}

func (p *parser) orderBy(s *ast.Select) error {
	if !p.isKw("ORDER") {
		return nil
	}
	p.next()
	if err := p.expectKw("BY"); err != nil {
		return err
	}
	if p.isKw("ALL") {
		return p.notSupported(p.peek(), "ORDER BY ALL")
	}
	for {
		t := p.peek()
		e, err := p.expr()
		if err != nil {
			return err
		}
		it := ast.OrderItem{Pos: t.pos, Expr: e}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		if p.acceptKw("NULLS") {
			first := p.isKw("FIRST")
			if !first && !p.isKw("LAST") {
				return p.syntaxError(p.peek())
			}
			p.next()
			it.NullsFirst = &first
		}
		s.OrderBy = append(s.OrderBy, it)
		if !p.acceptOp(",") {
			return nil
		}
	}
}

// limitOffset parses LIMIT n [OFFSET m] or OFFSET m [LIMIT n].
func (p *parser) limitOffset(s *ast.Select) error {
	for range 2 {
		switch {
		case s.Limit == nil && p.acceptKw("LIMIT"):
			if p.acceptKw("ALL") {
				continue
			}
			e, err := p.expr()
			if err != nil {
				return err
			}
			if p.isOp("%") || p.isKw("PERCENT") {
				return p.notSupported(p.peek(), "LIMIT with a percentage")
			}
			s.Limit = e
		case s.Offset == nil && p.acceptKw("OFFSET"):
			e, err := p.expr()
			if err != nil {
				return err
			}
			if !p.acceptKw("ROWS") {
				p.acceptKw("ROW")
			}
			s.Offset = e
		}
	}
	if p.isKw("FETCH") {
		return p.notSupported(p.peek(), "FETCH FIRST")
	}
	return nil
}
