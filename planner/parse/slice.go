package parse

import (
	"strconv"

	"github.com/flightd/flightd/planner/ast"
)

// slice parses the rest of x[begin:end] after begin (nil when omitted), at the ":", into
// array_slice(x, begin, end). An omitted begin is 1, an omitted end the largest BIGINT
// (the end of the value). A step (x[a:b:c]) is not supported yet.
func (p *parser) slice(x, begin ast.Expr) (ast.Expr, error) {
	colon := p.next() // ":"
	if begin == nil {
		begin = &ast.Literal{Pos: colon.pos, Kind: ast.LitInt, Text: "1"}
	}
	var end ast.Expr = &ast.Literal{Pos: colon.pos, Kind: ast.LitInt, Text: strconv.FormatInt(1<<63-1, 10)}
	if !p.isOp("]") && !p.isOp(":") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		end = e
	}
	if p.isOp(":") {
		return nil, p.notSupported(p.peek(), "slices with a step")
	}
	if err := p.expectOp("]"); err != nil {
		return nil, err
	}
	return &ast.FuncCall{Pos: x.Position(), Name: "array_slice", Args: []ast.Expr{x, begin, end}}, nil
}
