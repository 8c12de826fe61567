package parse

import (
	"strconv"

	"github.com/flightd/flightd/planner/ast"
)

// listLiteral parses [x, ...] as DuckDB does: a call of list_value over the items.
func (p *parser) listLiteral() (ast.Expr, error) {
	start := p.next() // "["
	call := &ast.FuncCall{Pos: start.pos, Name: "list_value"}
	if p.acceptOp("]") {
		return call, nil
	}
	items, err := p.exprList()
	if err != nil {
		return nil, err
	}
	call.Args = items
	return call, p.expectOp("]")
}

// arrayDims parses the array suffixes of a type name: [n] (a fixed-size array) or []
// (a list), repeated.
func (p *parser) arrayDims(tn *ast.TypeName) error {
	for p.acceptOp("[") {
		if p.acceptOp("]") {
			tn.Dims = append(tn.Dims, -1)
			continue
		}
		n := p.peek()
		if n.kind != tInt {
			return p.syntaxError(n)
		}
		p.next()
		v, err := strconv.Atoi(n.text)
		if err != nil || v <= 0 {
			return p.parserErrorAt(n, "array size must be a positive integer")
		}
		tn.Dims = append(tn.Dims, v)
		if err := p.expectOp("]"); err != nil {
			return err
		}
	}
	return nil
}
