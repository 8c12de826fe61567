package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// joinKeywords start a join after a table reference.
var joinKeywords = map[string]bool{
	"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true,
	"NATURAL": true, "POSITIONAL": true, "ASOF": true, "SEMI": true, "ANTI": true,
	"LATERAL": true, "OUTER": true,
}

// tableRef parses one base table with its alias and time-travel clause.
func (p *parser) tableRef() (*ast.TableRef, error) {
	t := p.peek()
	if t.kind == tString {
		return nil, p.notSupported(t, "reading files in FROM")
	}
	ref := &ast.TableRef{Pos: t.pos}
	for {
		name, err := p.identifier()
		if err != nil {
			return nil, err
		}
		ref.Name = append(ref.Name, name)
		if !p.acceptOp(".") {
			break
		}
	}
	if p.isOp("(") {
		return nil, p.notSupported(t, "table functions")
	}
	if err := p.tableSuffixes(ref); err != nil {
		return nil, err
	}
	return ref, p.rejectSample()
}

// tableSuffixes reads the alias and the AT clause, in either order.
func (p *parser) tableSuffixes(ref *ast.TableRef) error {
	for {
		t := p.peek()
		at, ok, err := p.atClause()
		switch {
		case err != nil:
			return err
		case ok:
			if ref.At != nil {
				return p.syntaxError(t)
			}
			ref.At = at
			continue
		}
		if ref.Alias != "" {
			return nil
		}
		switch {
		case p.acceptKw("AS"):
			if ref.Alias, err = p.identifier(); err != nil {
				return err
			}
		case p.isAliasStart() && !p.isTimeTravelAlias():
			ref.Alias, _ = p.identifier()
		default:
			return nil
		}
		if p.isOp("(") {
			return p.notSupported(p.peek(), "column aliases on tables")
		}
	}
}

// isTimeTravelAlias reports whether VERSION/TIMESTAMP here start "... AS OF".
func (p *parser) isTimeTravelAlias() bool {
	kw := p.peek().upper()
	return (kw == "VERSION" || kw == "TIMESTAMP") && p.peekAt(1).upper() == "AS" && p.peekAt(2).upper() == "OF"
}

// atClause parses AT (VERSION => e | TIMESTAMP => e), FOR SYSTEM_TIME AS OF e,
// FOR SYSTEM_VERSION AS OF e, FOR VERSION AS OF e, FOR TIMESTAMP AS OF e, VERSION AS OF e
// and TIMESTAMP AS OF e. ok is false when none starts here.
func (p *parser) atClause() (at *ast.AtClause, ok bool, err error) {
	t := p.peek()
	switch {
	case p.isKw("AT") && p.peekAt(1).kind == tOp && p.peekAt(1).text == "(":
		p.i += 2
		unit, err := p.atUnit(false)
		if err != nil {
			return nil, false, err
		}
		if err := p.expectOp("=>"); err != nil {
			return nil, false, err
		}
		e, err := p.expr()
		if err != nil {
			return nil, false, err
		}
		return &ast.AtClause{Pos: t.pos, Unit: unit, Expr: e}, true, p.expectOp(")")
	case p.isKw("FOR"):
		p.next()
		unit, err := p.atUnit(true)
		if err != nil {
			return nil, false, err
		}
		return p.asOf(t, unit)
	case p.isTimeTravelAlias():
		unit, _ := p.atUnit(false)
		return p.asOf(t, unit)
	}
	return nil, false, nil
}

func (p *parser) asOf(start token, unit ast.AtUnit) (*ast.AtClause, bool, error) {
	if err := p.expectKw("AS"); err != nil {
		return nil, false, err
	}
	if err := p.expectKw("OF"); err != nil {
		return nil, false, err
	}
	e, err := p.expr()
	if err != nil {
		return nil, false, err
	}
	return &ast.AtClause{Pos: start.pos, Unit: unit, Expr: e}, true, nil
}

// atUnit reads VERSION or TIMESTAMP (and, after FOR, SYSTEM_VERSION or SYSTEM_TIME).
func (p *parser) atUnit(afterFor bool) (ast.AtUnit, error) {
	t := p.next()
	switch t.upper() {
	case "VERSION":
		return ast.AtVersion, nil
	case "TIMESTAMP":
		return ast.AtTimestamp, nil
	case "SYSTEM_VERSION":
		if afterFor {
			return ast.AtVersion, nil
		}
	case "SYSTEM_TIME":
		if afterFor {
			return ast.AtTimestamp, nil
		}
	}
	return 0, p.syntaxError(t)
}

// rejectSample rejects SAMPLE, PIVOT and UNPIVOT after a table.
func (p *parser) rejectSample() error {
	t := p.peek()
	switch {
	case t.upper() == "TABLESAMPLE" || (t.upper() == "USING" && p.peekAt(1).upper() == "SAMPLE"):
		return p.notSupported(t, "SAMPLE")
	case t.upper() == "PIVOT" || t.upper() == "UNPIVOT":
		return p.notSupported(t, t.upper())
	}
	return nil
}
