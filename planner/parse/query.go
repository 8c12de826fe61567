package parse

import (
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
)

// query parses a full query: [WITH ...] set-operation terms, then ORDER BY and
// LIMIT/OFFSET for the whole result.
func (p *parser) query() (ast.Statement, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if p.isKw("WITH") {
		return p.withQuery()
	}
	body, err := p.unionTerm()
	if err != nil {
		return nil, err
	}
	return p.queryTail(body)
}

// queryTail attaches ORDER BY and LIMIT/OFFSET to body, wrapping it in SELECT * when body
// cannot hold them itself.
func (p *parser) queryTail(body ast.Statement) (ast.Statement, error) {
	if !p.isKw("ORDER") && !p.isKw("LIMIT") && !p.isKw("OFFSET") {
		return body, p.afterQuery()
	}
	var order []ast.OrderItem
	var limit, offset ast.Expr
	if err := p.orderBy(&order); err != nil {
		return nil, err
	}
	if err := p.limitOffset(&limit, &offset); err != nil {
		return nil, err
	}
	switch b := body.(type) {
	case *ast.Select:
		if b.OrderBy == nil && b.Limit == nil && b.Offset == nil {
			b.OrderBy, b.Limit, b.Offset = order, limit, offset
			return b, p.afterQuery()
		}
	case *ast.SetOp:
		if b.OrderBy == nil && b.Limit == nil && b.Offset == nil {
			b.OrderBy, b.Limit, b.Offset = order, limit, offset
			return b, p.afterQuery()
		}
	}
	pos := body.Position()
	wrapped := &ast.Select{Pos: pos, Items: []ast.SelectItem{{Pos: pos, Star: true}},
		From: &ast.SubqueryRef{Pos: pos, Query: body}, OrderBy: order, Limit: limit, Offset: offset}
	return wrapped, p.afterQuery()
}

// afterQuery rejects clauses that may only follow a whole query and that we do not parse.
func (p *parser) afterQuery() error {
	if p.isKw("FOR") && (p.peekAt(1).upper() == "UPDATE" || p.peekAt(1).upper() == "SHARE") {
		return p.notSupported(p.peek(), "FOR UPDATE")
	}
	return nil
}

func (p *parser) withQuery() (ast.Statement, error) {
	start := p.next() // WITH
	w := &ast.With{Pos: start.pos, Recursive: p.acceptKw("RECURSIVE")}
	for {
		t := p.peek()
		name, err := p.identifier()
		if err != nil {
			return nil, err
		}
		cte := ast.CTE{Pos: t.pos, Name: name}
		if p.isOp("(") {
			if cte.Columns, err = p.nameList(); err != nil {
				return nil, err
			}
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		if p.acceptKw("NOT") {
			if err := p.expectKw("MATERIALIZED"); err != nil {
				return nil, err
			}
		} else {
			p.acceptKw("MATERIALIZED")
		}
		if cte.Query, err = p.parenQuery(); err != nil {
			return nil, err
		}
		w.CTEs = append(w.CTEs, cte)
		if !p.acceptOp(",") {
			break
		}
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	w.Query = q
	return w, nil
}

// parenQuery parses ( query ).
func (p *parser) parenQuery() (ast.Statement, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return q, p.expectOp(")")
}

// nameList parses ( name, ... ).
func (p *parser) nameList() ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.identifier()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.acceptOp(",") {
			return out, p.expectOp(")")
		}
	}
}

// unionTerm parses terms joined by UNION and EXCEPT (left-associative); INTERSECT binds
// tighter, as in DuckDB and the SQL standard.
func (p *parser) unionTerm() (ast.Statement, error) {
	left, err := p.intersectTerm()
	if err != nil {
		return nil, err
	}
	for p.isKw("UNION") || p.isKw("EXCEPT") {
		op := p.next()
		all, err := p.setQuantifier()
		if err != nil {
			return nil, err
		}
		byName, err := p.byName(op)
		if err != nil {
			return nil, err
		}
		right, err := p.intersectTerm()
		if err != nil {
			return nil, err
		}
		left = &ast.SetOp{Pos: left.Position(), Op: op.upper(), All: all, ByName: byName, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) intersectTerm() (ast.Statement, error) {
	left, err := p.queryPrimary()
	if err != nil {
		return nil, err
	}
	for p.isKw("INTERSECT") {
		p.next()
		all, err := p.setQuantifier()
		if err != nil {
			return nil, err
		}
		right, err := p.queryPrimary()
		if err != nil {
			return nil, err
		}
		left = &ast.SetOp{Pos: left.Position(), Op: "INTERSECT", All: all, Left: left, Right: right}
	}
	return left, nil
}

// setQuantifier reads ALL or DISTINCT after a set operator (BY NAME is left to byName).
func (p *parser) setQuantifier() (bool, error) {
	all := p.acceptKw("ALL")
	if !all {
		p.acceptKw("DISTINCT")
	}
	return all, nil
}

// byName reads BY NAME after UNION [ALL]; DuckDB rejects it after EXCEPT (and INTERSECT,
// whose parser does not call this).
func (p *parser) byName(op token) (bool, error) {
	if !p.isKw("BY") || p.peekAt(1).upper() != "NAME" {
		return false, nil
	}
	if op.upper() != "UNION" {
		return false, dberr.New(dberr.Parser, "Invalid combination of %s and BY NAME", op.upper()).At(op.pos.Line, op.pos.Column)
	}
	p.i += 2
	return true, nil
}

// queryPrimary is SELECT ..., VALUES ... or ( query ).
func (p *parser) queryPrimary() (ast.Statement, error) {
	t := p.peek()
	switch {
	case p.isKw("SELECT"):
		return p.selectCore()
	case p.isKw("VALUES"):
		return p.values()
	case p.isOp("("):
		return p.parenQuery()
	case unsupportedStatements[t.upper()] != "":
		return nil, p.notSupported(t, unsupportedStatements[t.upper()])
	}
	return nil, p.syntaxError(t)
}

// values parses VALUES (e, ...), (e, ...).
func (p *parser) values() (*ast.Values, error) {
	start := p.next() // VALUES
	v := &ast.Values{Pos: start.pos}
	for {
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		row, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if len(v.Rows) > 0 && len(row) != len(v.Rows[0]) {
			return nil, p.parserErrorAt(start, "VALUES lists must all be the same length")
		}
		v.Rows = append(v.Rows, row)
		if !p.acceptOp(",") {
			return v, nil
		}
	}
}
