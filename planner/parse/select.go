package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// selectCore parses SELECT ... [FROM ...] [WHERE] [GROUP BY] [HAVING], without ORDER BY,
// LIMIT and set operations (see query).
func (p *parser) selectCore() (*ast.Select, error) {
	start := p.next() // SELECT
	s := &ast.Select{Pos: start.pos}
	if p.acceptKw("DISTINCT") {
		if p.acceptKw("ON") {
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			on, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			s.DistinctOn = on
		} else {
			s.Distinct = true
		}
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
		if s.From, err = p.fromClause(); err != nil {
			return nil, err
		}
	}
	return s, p.selectClauses(s)
}

// selectClauses parses WHERE, GROUP BY, HAVING, WINDOW and QUALIFY.
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
	if p.isKw("WINDOW") {
		if s.Windows, err = p.windowClause(); err != nil {
			return err
		}
	}
	if p.acceptKw("QUALIFY") {
		if s.Qualify, err = p.expr(); err != nil {
			return err
		}
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
		t := p.next()
		return []ast.Expr{&ast.GroupAll{Pos: t.pos}}, nil
	}
	var out []ast.Expr
	for {
		e, err := p.groupItem()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// groupItem parses one GROUP BY entry: an expression, ROLLUP (...), CUBE (...) or
// GROUPING SETS ((...), ...).
func (p *parser) groupItem() (ast.Expr, error) {
	t := p.peek()
	kw := t.upper()
	isCall := p.peekAt(1).kind == tOp && p.peekAt(1).text == "("
	switch {
	case (kw == "ROLLUP" || kw == "CUBE") && isCall:
		p.i += 2
		items, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if kw == "CUBE" && len(items) > 12 {
			return nil, p.notSupported(t, "CUBE of more than 12 expressions")
		}
		g := &ast.GroupingSets{Pos: t.pos, Kind: kw, Items: items, Sets: expandSets(kw, items)}
		return g, p.expectOp(")")
	case kw == "GROUPING" && p.peekAt(1).upper() == "SETS":
		p.i += 2
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		g := &ast.GroupingSets{Pos: t.pos, Kind: "GROUPING SETS"}
		for {
			set, err := p.groupingSet()
			if err != nil {
				return nil, err
			}
			g.Sets = append(g.Sets, set)
			if !p.acceptOp(",") {
				return g, p.expectOp(")")
			}
		}
	}
	return p.expr()
}

// groupingSet parses ( [expr, ...] ) or a single expression.
func (p *parser) groupingSet() ([]ast.Expr, error) {
	if !p.isOp("(") {
		e, err := p.expr()
		return []ast.Expr{e}, err
	}
	p.next()
	if p.acceptOp(")") {
		return []ast.Expr{}, nil
	}
	list, err := p.exprList()
	if err != nil {
		return nil, err
	}
	return list, p.expectOp(")")
}

// expandSets lists the grouping sets of ROLLUP (prefixes, longest first) and CUBE (all
// subsets, larger first).
func expandSets(kind string, items []ast.Expr) [][]ast.Expr {
	var out [][]ast.Expr
	if kind == "ROLLUP" {
		for n := len(items); n >= 0; n-- {
			out = append(out, items[:n:n])
		}
		return out
	}
	for mask := (1 << len(items)) - 1; mask >= 0; mask-- {
		var set []ast.Expr
		for i, it := range items {
			if mask&(1<<(len(items)-1-i)) != 0 {
				set = append(set, it)
			}
		}
		out = append(out, set)
	}
	return out
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

// starModifiers parses EXCLUDE (names) and REPLACE (expr AS name, ...) after a star.
func (p *parser) starModifiers(it ast.SelectItem) (ast.SelectItem, error) {
	if p.acceptKw("EXCLUDE") {
		if !p.isOp("(") {
			name, err := p.identifier()
			it.Exclude = []string{name}
			if err != nil {
				return it, err
			}
		} else {
			names, err := p.nameList()
			if err != nil {
				return it, err
			}
			it.Exclude = names
		}
	}
	if p.acceptKw("REPLACE") {
		if err := p.expectOp("("); err != nil {
			return it, err
		}
		for {
			t := p.peek()
			e, err := p.expr()
			if err != nil {
				return it, err
			}
			if err := p.expectKw("AS"); err != nil {
				return it, err
			}
			name, err := p.identifier()
			if err != nil {
				return it, err
			}
			it.Replace = append(it.Replace, ast.SelectItem{Pos: t.pos, Expr: e, Alias: name})
			if !p.acceptOp(",") {
				break
			}
		}
		if err := p.expectOp(")"); err != nil {
			return it, err
		}
	}
	for _, kw := range []string{"RENAME", "COLUMNS"} {
		if p.isKw(kw) {
			return it, p.notSupported(p.peek(), "* "+kw)
		}
	}
	return it, nil
}

func (p *parser) orderBy(out *[]ast.OrderItem) error {
	if !p.isKw("ORDER") {
		return nil
	}
	p.next()
	if err := p.expectKw("BY"); err != nil {
		return err
	}
	for {
		t := p.peek()
		var e ast.Expr
		var err error
		if all := len(*out) == 0 && p.acceptKw("ALL"); all {
			e = &ast.OrderAll{Pos: t.pos} // bind/order_all.go
		} else if e, err = p.expr(); err != nil {
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
		*out = append(*out, it)
		if _, all := e.(*ast.OrderAll); all || !p.acceptOp(",") {
			return nil
		}
	}
}

// limitOffset parses LIMIT n [OFFSET m] or OFFSET m [LIMIT n].
func (p *parser) limitOffset(limit, offset *ast.Expr) error {
	for range 2 {
		switch {
		case *limit == nil && p.acceptKw("LIMIT"):
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
			*limit = e
		case *offset == nil && p.acceptKw("OFFSET"):
			e, err := p.expr()
			if err != nil {
				return err
			}
			if !p.acceptKw("ROWS") {
				p.acceptKw("ROW")
			}
			*offset = e
		}
	}
	if p.isKw("FETCH") {
		return p.notSupported(p.peek(), "FETCH FIRST")
	}
	return nil
}
