package bind

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// exprBinder binds expressions over one input. With agg set it binds over the output of an
// aggregate: group keys and aggregate calls become column references.
type exprBinder struct {
	b      *binder
	scope  *scope
	agg    *aggContext
	clause string // for error messages: "WHERE clause", "SELECT list", ...
	// input is the node the expression is evaluated over; subqueries join their plans
	// onto it (appending columns). nil where subqueries are not supported.
	input *plan.Node
	// win collects window functions; nil where they are not allowed.
	win *windowContext
	// aliases are select items a column name may refer to when no column has the name
	// (QUALIFY).
	aliases []selectItem
	// deferred, when set, takes uncorrelated scalar subqueries that cannot join onto an
	// input yet (HAVING).
	deferred *deferredSubqueries
	// unnest collects the select list's UNNEST calls (unnest.go); nil where UNNEST is not
	// allowed.
	unnest *unnestContext
}

func (eb *exprBinder) bind(e ast.Expr) (plan.Expr, error) {
	out, err := eb.bindInner(e)
	if err != nil {
		return nil, errAt(err, e.Position())
	}
	return out, nil
}

func (eb *exprBinder) bindInner(e ast.Expr) (plan.Expr, error) {
	if eb.agg != nil {
		if out, ok, err := eb.agg.bindPostAgg(eb, e); ok || err != nil {
			return out, err
		}
	}
	switch e := e.(type) {
	case *ast.Literal:
		return bindLiteral(e)
	case *ast.ColumnRef:
		out, err := eb.scope.resolve(e, eb.clause)
		if err != nil && len(e.Parts) > 1 {
			if field, ok := eb.fieldRef(e); ok { // struct_expr.go
				return field, nil
			}
		}
		if err != nil && len(e.Parts) == 1 && eb.aliases != nil {
			for _, it := range eb.aliases {
				if it.alias && strings.EqualFold(it.name, e.Parts[0]) {
					return eb.bind(it.expr)
				}
			}
		}
		return out, err
	case *ast.BoundColumn:
		return e.Ref.(*plan.ColumnRef), nil
	case *ast.Subquery:
		return eb.bindScalarSubquery(e)
	case *ast.Exists:
		return eb.bindMarkSubquery(e.Query, nil, e.Pos)
	case *ast.InSubquery:
		return eb.bindInSubquery(e)
	case *ast.IsDistinct:
		return eb.call(map[bool]string{false: "is_distinct_from", true: "is_not_distinct_from"}[e.Not], e.L, e.R)
	case *ast.Interval:
		return bindInterval(e)
	case *ast.Unary:
		return eb.bindUnary(e)
	case *ast.Binary:
		return eb.bindBinary(e)
	case *ast.IsNull:
		return eb.call(map[bool]string{false: "is_null", true: "is_not_null"}[e.Not], e.X)
	case *ast.Between:
		return eb.bindBetween(e)
	case *ast.InList:
		return eb.bindIn(e)
	case *ast.Like:
		return eb.bindLike(e)
	case *ast.Case:
		return eb.bindCase(e)
	case *ast.Cast:
		return eb.bindCast(e)
	case *ast.FuncCall:
		return eb.bindFunc(e)
	case *ast.StructPack:
		return eb.bindStructPack(e) // struct_expr.go
	case *ast.Subscript:
		return eb.bindSubscript(e) // struct_expr.go
	case *ast.Param:
		if eb.b == nil || eb.b.params == nil {
			return nil, dberr.NotSupported("prepared statement parameters here")
		}
		return eb.b.params.bind(e)
	}
	return nil, dberr.New(dberr.Internal, "unexpected expression %T", e)
}

// call binds args and builds the canonical function name over them.
func (eb *exprBinder) call(name string, args ...ast.Expr) (plan.Expr, error) {
	bound := make([]plan.Expr, len(args))
	for i, a := range args {
		x, err := eb.bind(a)
		if err != nil {
			return nil, err
		}
		bound[i] = x
	}
	return functions.NewCall(name, bound)
}

func bindLiteral(e *ast.Literal) (plan.Expr, error) {
	var s scalar.Scalar
	switch e.Kind {
	case ast.LitInt:
		return intLiteral(e.Text)
	case ast.LitDecimal:
		if d, ok := decimalLiteral(e.Text); ok {
			return d, nil
		}
		f, err := strconv.ParseFloat(e.Text, 64)
		if err != nil {
			return nil, dberr.Wrap(dberr.Conversion, err, "invalid number %s", e.Text)
		}
		s = scalar.NewFloat64Scalar(f)
	case ast.LitString:
		s = scalar.NewStringScalar(e.Text)
	case ast.LitBool:
		s = scalar.NewBooleanScalar(e.Text == "TRUE")
	case ast.LitNull:
		s = scalar.MakeNullScalar(arrow.Null)
	case ast.LitDate:
		d, err := functions.ParseDate(e.Text)
		if err != nil {
			return nil, err
		}
		s = scalar.NewDate32Scalar(d)
	case ast.LitTimestamp:
		return functions.Cast(&plan.Literal{Value: scalar.NewStringScalar(e.Text)}, timestampType)
	}
	return &plan.Literal{Value: s}, nil
}

// intLiteral types an integer literal as INTEGER when it fits and BIGINT otherwise.
func intLiteral(text string) (plan.Expr, error) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, dberr.NotSupported(fmt.Sprintf("integer literal %s beyond BIGINT", text))
	}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return &plan.Literal{Value: scalar.NewInt32Scalar(int32(n))}, nil
	}
	return &plan.Literal{Value: scalar.NewInt64Scalar(n)}, nil
}

func (eb *exprBinder) bindUnary(e *ast.Unary) (plan.Expr, error) {
	switch e.Op {
	case "NOT":
		return eb.call("not", e.X)
	case "-":
		if lit, ok := e.X.(*ast.Literal); ok && (lit.Kind == ast.LitInt || lit.Kind == ast.LitDecimal) {
			neg := *lit
			neg.Text = "-" + lit.Text
			if lit.Kind == ast.LitInt {
				return intLiteral(neg.Text)
			}
			return bindLiteral(&neg)
		}
		return eb.call("negate", e.X)
	}
	x, err := eb.bind(e.X)
	if err != nil {
		return nil, err
	}
	if !functions.IsNumeric(x.Type()) {
		return nil, dberr.New(dberr.Binder, "no function matches the given name and argument types '+(%s)'", x.Type())
	}
	return x, nil
}

var binaryFuncs = map[string]string{
	"=": "equal", "<>": "not_equal", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte",
	"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "modulus", "//": "divide",
	"AND": "and", "OR": "or", "||": "concat",
	"&&": "array_has_any", "@>": "array_has_all", "<@": "array_has_all",
}

func (eb *exprBinder) bindBinary(e *ast.Binary) (plan.Expr, error) {
	if cmp, all, ok := quantifiedOp(e.Op); ok {
		return eb.bindQuantified(e, cmp, all) // quantified.go
	}
	name, ok := binaryFuncs[e.Op]
	if !ok {
		return nil, dberr.NotSupported("operator " + e.Op)
	}
	if name == "concat" {
		return eb.bindConcatOp(e)
	}
	if e.Op == "//" {
		return eb.bindIntegerDivide(e) // intdiv.go
	}
	if e.Op == "<@" {
		return eb.call(name, e.R, e.L) // a <@ b is b @> a
	}
	return eb.call(name, e.L, e.R)
}

// bindConcatOp binds a || b: concat, except that a NULL operand makes the result NULL
// (concat skips NULLs): case(or(is_null(a), is_null(b)), NULL, concat(a, b)).
func (eb *exprBinder) bindConcatOp(e *ast.Binary) (plan.Expr, error) {
	l, err := eb.bind(e.L)
	if err != nil {
		return nil, err
	}
	r, err := eb.bind(e.R)
	if err != nil {
		return nil, err
	}
	if l.Type().ID() == arrow.NULL || r.Type().ID() == arrow.NULL {
		// DuckDB: || with an untyped NULL is an untyped NULL
		return &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}, nil
	}
	c, err := functions.NewCall("concat", []plan.Expr{l, r})
	if err != nil || (!l.Nullable() && !r.Nullable()) {
		return c, err
	}
	var nulls []plan.Expr
	for _, x := range []plan.Expr{l, r} {
		if x.Nullable() {
			isNull, err := functions.NewCall("is_null", []plan.Expr{x})
			if err != nil {
				return nil, err
			}
			nulls = append(nulls, isNull)
		}
	}
	cond := nulls[0]
	if len(nulls) == 2 {
		if cond, err = functions.NewCall("or", nulls); err != nil {
			return nil, err
		}
	}
	return functions.NewCall("case", []plan.Expr{cond, &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}, c})
}

func (eb *exprBinder) bindBetween(e *ast.Between) (plan.Expr, error) {
	x, err := eb.bind(e.X)
	if err != nil {
		return nil, err
	}
	lo, err := eb.bind(e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := eb.bind(e.Hi)
	if err != nil {
		return nil, err
	}
	ge, err := functions.NewCall("gte", []plan.Expr{x, lo})
	if err != nil {
		return nil, err
	}
	le, err := functions.NewCall("lte", []plan.Expr{x, hi})
	if err != nil {
		return nil, err
	}
	return negateIf(e.Not)(functions.NewCall("and", []plan.Expr{ge, le}))
}

// negateIf returns a function that wraps a built call in not() when not is set.
func negateIf(not bool) func(*plan.Call, error) (plan.Expr, error) {
	return func(e *plan.Call, err error) (plan.Expr, error) {
		if err != nil || !not {
			return e, err
		}
		return functions.NewCall("not", []plan.Expr{e})
	}
}

// bindIn expands x IN (a, b) to equal(x, a) OR equal(x, b); NULL semantics match.
func (eb *exprBinder) bindIn(e *ast.InList) (plan.Expr, error) {
	x, err := eb.bind(e.X)
	if err != nil {
		return nil, err
	}
	eqs := make([]*plan.Call, 0, len(e.List))
	for _, item := range e.List {
		v, err := eb.bind(item)
		if err != nil {
			return nil, err
		}
		eq, err := functions.NewCall("equal", []plan.Expr{x, v})
		if err != nil {
			return nil, errAt(err, item.Position())
		}
		eqs = append(eqs, eq)
	}
	acc, err := balancedOr(eqs)
	if err != nil {
		return nil, err
	}
	return negateIf(e.Not)(acc, nil)
}

// balancedOr joins terms with OR as a balanced tree (OR is associative in SQL's
// three-valued logic): a list of thousands of IN values stays a few dozen levels deep, within
// the nesting limits of Substrait decoding and recursion, where a chain would not. Up to
// three terms it is the left-deep chain ((a OR b) OR c).
func balancedOr(terms []*plan.Call) (*plan.Call, error) {
	if len(terms) == 1 {
		return terms[0], nil
	}
	mid := (len(terms) + 1) / 2
	l, err := balancedOr(terms[:mid])
	if err != nil {
		return nil, err
	}
	r, err := balancedOr(terms[mid:])
	if err != nil {
		return nil, err
	}
	return functions.NewCall("or", []plan.Expr{l, r})
}

func (eb *exprBinder) bindLike(e *ast.Like) (plan.Expr, error) {
	x, err := eb.bind(e.X)
	if err != nil {
		return nil, err
	}
	pat, err := eb.bind(e.Pattern)
	if err != nil {
		return nil, err
	}
	if p, ok := pat.(*paramRef); ok {
		eb.b.params.note(p.index, arrow.BinaryTypes.String)
		pat = &plan.Literal{Value: scalar.NewStringScalar("")}
	}
	pat = foldString(pat)
	name := map[[2]bool]string{{false, false}: "like", {true, false}: "not_like", {false, true}: "ilike", {true, true}: "not_ilike"}[[2]bool{e.Not, e.ILike}]
	return functions.NewCall(name, []plan.Expr{x, pat})
}

func (eb *exprBinder) bindCase(e *ast.Case) (plan.Expr, error) {
	var operand plan.Expr
	if e.Operand != nil {
		var err error
		if operand, err = eb.bind(e.Operand); err != nil {
			return nil, err
		}
	}
	var args []plan.Expr
	for _, w := range e.Whens {
		c, err := eb.bind(w.Cond)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			if c, err = functions.NewCall("equal", []plan.Expr{operand, c}); err != nil {
				return nil, errAt(err, w.Cond.Position())
			}
		}
		v, err := eb.bind(w.Then)
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
	var els plan.Expr = &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
	if e.Else != nil {
		var err error
		if els, err = eb.bind(e.Else); err != nil {
			return nil, err
		}
	}
	return functions.NewCall("case", append(args, els))
}

func (eb *exprBinder) bindCast(e *ast.Cast) (plan.Expr, error) {
	to, err := typeFromName(e.Type)
	if err != nil {
		return nil, err
	}
	x, err := eb.bind(e.X)
	if err != nil {
		return nil, err
	}
	if to.ID() == arrow.STRUCT && x.Type().ID() == arrow.STRUCT {
		return castStruct(x, to.(*arrow.StructType), e.Try) // struct_expr.go
	}
	if e.Try {
		if arrow.TypeEqual(x.Type(), to) {
			return x, nil
		}
		return &plan.Cast{Input: x, DataType: to, Try: true}, nil
	}
	return functions.Cast(x, to)
}
