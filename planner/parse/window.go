package parse

import (
	"github.com/flightd/flightd/planner/ast"
)

// over parses OVER name or OVER ( [name] [PARTITION BY ...] [ORDER BY ...] [frame] ).
func (p *parser) over() (*ast.WindowSpec, error) {
	p.next() // OVER
	if !p.isOp("(") {
		name, err := p.identifier()
		if err != nil {
			return nil, err
		}
		return &ast.WindowSpec{Name: name}, nil
	}
	p.next()
	spec, err := p.windowSpecBody()
	if err != nil {
		return nil, err
	}
	return spec, p.expectOp(")")
}

// windowSpecBody parses the inside of a window specification.
func (p *parser) windowSpecBody() (*ast.WindowSpec, error) {
	spec := &ast.WindowSpec{}
	var err error
	if p.isAliasStart() && !p.isKw("PARTITION") && !p.isKw("ROWS") && !p.isKw("RANGE") && !p.isKw("GROUPS") {
		if spec.Name, err = p.identifier(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("PARTITION") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if spec.PartitionBy, err = p.exprList(); err != nil {
			return nil, err
		}
	}
	if err := p.orderBy(&spec.OrderBy); err != nil {
		return nil, err
	}
	if p.isKw("ROWS") || p.isKw("RANGE") || p.isKw("GROUPS") {
		if spec.Frame, err = p.frame(); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

func (p *parser) frame() (*ast.FrameSpec, error) {
	f := &ast.FrameSpec{Unit: p.next().upper()}
	between := p.acceptKw("BETWEEN")
	var err error
	if f.Start, err = p.frameBound(); err != nil {
		return nil, err
	}
	if between {
		if err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		end, err := p.frameBound()
		if err != nil {
			return nil, err
		}
		f.End = &end
	}
	if p.isKw("EXCLUDE") {
		return nil, p.notSupported(p.peek(), "frame EXCLUDE")
	}
	return f, nil
}

func (p *parser) frameBound() (ast.FrameBoundSpec, error) {
	switch {
	case p.acceptKw("UNBOUNDED"):
		switch {
		case p.acceptKw("PRECEDING"):
			return ast.FrameBoundSpec{Kind: "UNBOUNDED PRECEDING"}, nil
		case p.acceptKw("FOLLOWING"):
			return ast.FrameBoundSpec{Kind: "UNBOUNDED FOLLOWING"}, nil
		}
		return ast.FrameBoundSpec{}, p.syntaxError(p.peek())
	case p.acceptKw("CURRENT"):
		return ast.FrameBoundSpec{Kind: "CURRENT ROW"}, p.expectKw("ROW")
	}
	e, err := p.addExpr()
	if err != nil {
		return ast.FrameBoundSpec{}, err
	}
	switch {
	case p.acceptKw("PRECEDING"):
		return ast.FrameBoundSpec{Kind: "PRECEDING", Offset: e}, nil
	case p.acceptKw("FOLLOWING"):
		return ast.FrameBoundSpec{Kind: "FOLLOWING", Offset: e}, nil
	}
	return ast.FrameBoundSpec{}, p.syntaxError(p.peek())
}

// windowClause parses WINDOW name AS (spec), ...
func (p *parser) windowClause() ([]ast.NamedWindow, error) {
	p.next() // WINDOW
	var out []ast.NamedWindow
	for {
		name, err := p.identifier()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		spec, err := p.windowSpecBody()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		out = append(out, ast.NamedWindow{Name: name, Spec: *spec})
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}
