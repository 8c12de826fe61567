package parse

import "github.com/flightd/flightd/planner/ast"

// dropIndex parses the rest of DROP INDEX [IF EXISTS] name [ON table].
func (p *parser) dropIndex(t token, ifExists bool) (ast.Statement, error) {
	name, err := p.identifier()
	if err != nil {
		return nil, err
	}
	d := &ast.DropIndex{Pos: t.pos, Name: name, IfExists: ifExists}
	if p.acceptKw("ON") {
		if d.Table, err = p.qualifiedName(); err != nil {
			return nil, err
		}
	}
	if p.isKw("CASCADE") || p.isKw("RESTRICT") {
		return nil, p.notSupported(p.peek(), "DROP INDEX ... "+p.peek().upper())
	}
	return d, nil
}

// alterIndex parses the rest of ALTER INDEX name [ON table] OPTIMIZE.
func (p *parser) alterIndex(t token) (ast.Statement, error) {
	name, err := p.identifier()
	if err != nil {
		return nil, err
	}
	a := &ast.AlterIndex{Pos: t.pos, Name: name}
	if p.acceptKw("ON") {
		if a.Table, err = p.qualifiedName(); err != nil {
			return nil, err
		}
	}
	if !p.acceptKw("OPTIMIZE") {
		return nil, p.notSupported(p.peek(), "ALTER INDEX "+p.peek().upper())
	}
	a.Action = "OPTIMIZE"
	return a, nil
}
