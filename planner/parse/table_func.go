package parse

import (
	"strings"

	"github.com/flightd/flightd/planner/ast"
)

// isTableFunc reports whether a table function call, name(, starts here.
func (p *parser) isTableFunc() bool {
	k := p.peek().kind
	next := p.peekAt(1)
	return (k == tIdent || k == tQIdent) && next.kind == tOp && next.text == "("
}

// tableFunc parses name([args]) [AS] alias [(columns)] in FROM. Named arguments
// (name := value) are not supported yet.
func (p *parser) tableFunc() (ast.FromItem, error) {
	t := p.next()
	tf := &ast.TableFunc{Pos: t.pos, Name: strings.ToLower(t.text)}
	p.next() // "("
	if !p.isOp(")") {
		for {
			if p.isNamedArg() {
				return nil, p.notSupported(p.peek(), "named arguments of table function "+tf.Name)
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			tf.Args = append(tf.Args, e)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if _, ok, err := p.atClause(); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return nil, p.notSupported(t, "time travel on table functions")
	}
	var err error
	if tf.Alias, tf.Columns, err = p.derivedAlias(); err != nil {
		return nil, err
	}
	return tf, p.rejectSample()
}
