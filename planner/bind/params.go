package bind

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// params is the parameter state of one statement: the types inferred for each
// placeholder ($n is index n-1) and, in the second pass, the values bound to them.
type params struct {
	types  []arrow.DataType
	values []scalar.Scalar // nil while inferring types
}

// paramRef is an unbound placeholder during type inference. It is typed NULL, so the
// binder's implicit casts give it the type of its context (a Cast around it).
type paramRef struct {
	index int
}

// Type implements plan.Expr.
func (p *paramRef) Type() arrow.DataType { return arrow.Null }

// Nullable implements plan.Expr.
func (p *paramRef) Nullable() bool { return true }

func (p *paramRef) String() string { return fmt.Sprintf("$%d", p.index+1) }

// paramIndex is the 0-based index of a parameter.
func paramIndex(e *ast.Param) int {
	if e.Index > 0 {
		return e.Index - 1
	}
	return e.Ordinal - 1
}

// note records that parameter i exists, with type t when t is not nil and it has none yet.
func (ps *params) note(i int, t arrow.DataType) {
	for len(ps.types) <= i {
		ps.types = append(ps.types, nil)
	}
	if ps.types[i] == nil && t != nil && t.ID() != arrow.NULL {
		ps.types[i] = t
	}
}

// bind returns the placeholder (inference) or the bound value cast to the parameter's
// inferred type.
func (ps *params) bind(e *ast.Param) (plan.Expr, error) {
	i := paramIndex(e)
	if i < 0 {
		return nil, dberr.New(dberr.Parser, "invalid parameter")
	}
	if ps.values == nil {
		ps.note(i, nil)
		return &paramRef{index: i}, nil
	}
	if i >= len(ps.values) {
		return nil, dberr.New(dberr.InvalidInput, "no value bound for parameter $%d", i+1)
	}
	v := ps.values[i]
	t := ps.types[i]
	if v == nil || !v.IsValid() {
		return &plan.Literal{Value: scalar.MakeNullScalar(t)}, nil
	}
	return functions.Cast(&plan.Literal{Value: v}, t)
}

// BindParams binds stmt with prepared-statement parameters. It first infers each
// placeholder's type from its context, as DuckDB does (the type it is compared with,
// combined with or cast to; int64 in LIMIT/OFFSET; utf8 where nothing decides), then, when
// values is not nil, binds again with each value cast to its parameter's type. With nil
// values it returns the types and a plan whose schema is the result schema but which still
// holds placeholders: it cannot be produced to Substrait.
func BindParams(ctx context.Context, cat catalog.Catalog, stmt ast.Statement, values []scalar.Scalar) (plan.Node, []arrow.DataType, error) {
	return bindWithParams(ctx, cat, stmt, values, (*binder).bindStatement)
}

// bindWithParams runs bind once to infer the parameter types and, when values is not nil,
// again with the values bound (see BindParams).
func bindWithParams(ctx context.Context, cat catalog.Catalog, stmt ast.Statement, values []scalar.Scalar,
	bind func(*binder, ast.Statement) (plan.Node, error)) (plan.Node, []arrow.DataType, error) {
	ps := &params{}
	n, err := bind(&binder{ctx: ctx, cat: cat, params: ps}, stmt)
	if err != nil {
		return nil, nil, err
	}
	inferTypes(n, ps)
	if values == nil {
		return n, ps.types, nil
	}
	if len(values) != len(ps.types) {
		return nil, ps.types, dberr.New(dberr.InvalidInput, "the statement has %d parameters, %d values were bound", len(ps.types), len(values))
	}
	ps.values = values
	n, err = bind(&binder{ctx: ctx, cat: cat, params: ps}, stmt)
	return n, ps.types, err
}

// inferTypes gives each parameter the type of the first cast around it; the rest utf8.
func inferTypes(n plan.Node, ps *params) {
	forEachExpr(n, func(e plan.Expr) {
		walk(e, func(x plan.Expr) {
			if c, ok := x.(*plan.Cast); ok {
				if p, ok := c.Input.(*paramRef); ok {
					ps.note(p.index, c.DataType)
				}
			}
		})
	})
	for i, t := range ps.types {
		if t == nil {
			ps.types[i] = arrow.BinaryTypes.String
		}
	}
}

// forEachExpr calls f for every expression held by n and the nodes below it.
func forEachExpr(n plan.Node, f func(plan.Expr)) {
	var es []plan.Expr
	switch n := n.(type) {
	case *plan.Scan:
		if n.Filter != nil {
			es = append(es, n.Filter)
		}
	case *plan.Filter:
		es = []plan.Expr{n.Cond}
	case *plan.Project:
		es = n.Exprs
	case *plan.Aggregate:
		es = append(es, n.GroupBy...)
		for _, a := range n.Aggs {
			es = append(es, a.Args...)
			if a.Filter != nil {
				es = append(es, a.Filter)
			}
		}
	case *plan.Join:
		es = append(append(es, n.LeftKeys...), n.RightKeys...)
		if n.Cond != nil {
			es = append(es, n.Cond)
		}
	case *plan.Sort:
		for _, k := range n.Keys {
			es = append(es, k.Expr)
		}
	case *plan.Values:
		for _, r := range n.Rows {
			es = append(es, r...)
		}
	case *plan.Window:
		es = windowExprs(n) // flatten.go
	case *plan.Unnest:
		es = n.Lists
	}
	for _, e := range es {
		f(e)
	}
	for _, c := range n.Children() {
		forEachExpr(c, f)
	}
}
