package bind

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// aggName is the canonical name of an aggregate call's function (aliases resolved).
func aggName(name string) string {
	if c, ok := functions.AggregateAliases[name]; ok {
		return c
	}
	return name
}

// isAggregate reports whether e is a call of an aggregate function.
func isAggregate(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	return ok && f.Over == nil && (functions.Aggregates[aggName(f.Name)] && f.Name != "single_value" || unsupportedAggregates[f.Name])
}

func containsAggregate(e ast.Expr) bool { return ast.Any(e, isAggregate) }

// unsupportedAggregates are DuckDB aggregates flightd does not run yet.
var unsupportedAggregates = map[string]bool{
	"histogram": true, "product": true, "bit_and": true,
	"bit_or": true, "count_star": true, "fsum": true,
}

// unsupportedScalars are common DuckDB scalar functions flightd does not run yet; any
// other unknown name is reported the way DuckDB reports it.
var unsupportedScalars = map[string]bool{
	"strptime": true, "if": true, "hash": true, "md5": true, "random": true,
}

// dateShorthands are functions that are date_part of one field.
var dateShorthands = map[string]bool{
	"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true,
	"quarter": true, "week": true, "dayofweek": true, "dayofyear": true, "epoch": true,
}

func (eb *exprBinder) bindFunc(e *ast.FuncCall) (plan.Expr, error) {
	if e.Over != nil {
		if len(e.OrderBy) > 0 {
			return nil, dberr.NotSupported("ORDER BY inside the arguments of a window function")
		}
		return eb.bindWindow(e)
	}
	if e.IgnoreNulls {
		return nil, dberr.New(dberr.Binder, "IGNORE NULLS is only supported for window functions (%s)", e.Name)
	}
	if len(e.OrderBy) > 0 && !isAggregate(e) {
		return nil, dberr.New(dberr.Binder, "ORDER BY is only allowed in aggregate functions, not %s", e.Name)
	}
	if isAggregate(e) {
		if unsupportedAggregates[e.Name] {
			return nil, dberr.NotSupported("aggregate function " + e.Name)
		}
		if eb.clause == "aggregate function arguments" {
			return nil, dberr.New(dberr.Binder, "aggregate function calls cannot be nested")
		}
		return nil, dberr.New(dberr.Binder, "%s cannot contain aggregates!", eb.clause)
	}
	if e.Star {
		return nil, dberr.New(dberr.Binder, "%s(*) is only valid for count", e.Name)
	}
	if e.Distinct || e.Filter != nil {
		return nil, dberr.New(dberr.Binder, "DISTINCT and FILTER are only allowed in aggregate functions, not %s", e.Name)
	}
	name := e.Name
	if out, ok, err := eb.bindPatternFunc(e); ok {
		return out, err
	}
	if out, ok, err := eb.bindStructFunc(e); ok { // struct_expr.go
		return out, err
	}
	if c, ok := functions.Aliases[name]; ok {
		name = c
	}
	switch {
	case name == "list_value":
		return eb.listValue(e.Args)
	case name == "pi" && len(e.Args) == 0:
		return &plan.Literal{Value: scalar.NewFloat64Scalar(math.Pi)}, nil
	case name == "coalesce" || name == "ifnull":
		if name == "ifnull" && len(e.Args) != 2 {
			return nil, dberr.New(dberr.Binder, "ifnull takes two arguments")
		}
		return eb.call("coalesce", e.Args...)
	case dateShorthands[name]:
		if len(e.Args) != 1 {
			return nil, dberr.New(dberr.Binder, "%s takes one argument", name)
		}
		part := map[string]string{"dayofweek": "dow", "dayofyear": "doy"}[name]
		if part == "" {
			part = name
		}
		return eb.call("date_part", &ast.Literal{Pos: e.Pos, Kind: ast.LitString, Text: part}, e.Args[0])
	case functions.Scalars[name] == functions.Generic:
		return eb.call(name, e.Args...)
	case unsupportedScalars[name]:
		return nil, dberr.NotSupported("function " + e.Name)
	}
	return nil, dberr.New(dberr.Catalog, "Scalar Function with name %s does not exist!", e.Name)
}

// aggContext collects the group keys and aggregate calls of an aggregating query and binds
// expressions over the aggregate's output.
type aggContext struct {
	input   *scope
	groups  []plan.Expr
	names   []string
	aggs    []plan.AggCall
	aggKeys []string
	// orders are the aggregates' distinct ORDER BYs (agg_order.go), orderTexts their
	// texts, aggOrder each aggregate's index in orders (-1: none)
	orders     [][]plan.SortKey
	orderTexts []string
	aggOrder   []int
}

// bindPostAgg binds e over the aggregate output when e is an aggregate call or a group key.
// ok is false when the caller should bind e structurally (its parts are then bound here).
func (a *aggContext) bindPostAgg(eb *exprBinder, e ast.Expr) (out plan.Expr, ok bool, err error) {
	if f, isCall := e.(*ast.FuncCall); isCall && isAggregate(e) {
		out, err := a.addAggregate(eb, f)
		return out, true, err
	}
	if _, isLit := e.(*ast.Literal); isLit || containsAggregate(e) {
		return nil, false, nil
	}
	inner := &exprBinder{b: eb.b, scope: a.input, clause: eb.clause}
	bound, err := inner.bind(e)
	if _, outer := bound.(*outerRef); err == nil && outer {
		return bound, true, nil // an outer column is constant per group (flatten.go)
	}
	if err == nil {
		key := bound.String()
		for i, g := range a.groups {
			if g.String() == key {
				return &plan.ColumnRef{Index: i, Name: a.names[i], DataType: g.Type(), Null: g.Nullable()}, true, nil
			}
		}
	}
	if ref, isRef := e.(*ast.ColumnRef); isRef {
		if err != nil {
			return nil, true, err
		}
		name := strings.Join(ref.Parts, ".")
		return nil, true, dberr.New(dberr.Binder, "column %q must appear in the GROUP BY clause or must be part of an aggregate function", name)
	}
	return nil, false, nil
}

func (a *aggContext) addAggregate(eb *exprBinder, f *ast.FuncCall) (plan.Expr, error) {
	if unsupportedAggregates[f.Name] {
		return nil, dberr.NotSupported("aggregate function " + f.Name)
	}
	argBinder := &exprBinder{b: eb.b, scope: a.input, clause: "aggregate function arguments"}
	var args []plan.Expr
	if f.Star && f.Name != "count" {
		return nil, dberr.New(dberr.Binder, "%s(*) is only valid for count", f.Name)
	}
	for _, x := range f.Args {
		b, err := argBinder.bind(x)
		if err != nil {
			return nil, err
		}
		args = append(args, b)
	}
	agg, err := functions.NewAgg(aggName(f.Name), args, f.Distinct, ast.Format(f))
	if err != nil {
		return nil, err
	}
	if f.Filter != nil {
		cond, err := argBinder.bind(f.Filter)
		if err != nil {
			return nil, err
		}
		if agg.Filter, err = asPredicate(cond, "FILTER", f.Filter.Position()); err != nil {
			return nil, err
		}
	}
	order, orderIndex, err := a.addOrder(argBinder, f)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%v|%v|%v|%s", agg.Func, agg.Distinct, args, agg.Filter, order)
	k := len(a.aggs)
	for i, existing := range a.aggKeys {
		if existing == key {
			k = i
		}
	}
	if k == len(a.aggs) {
		a.aggs = append(a.aggs, agg)
		a.aggKeys = append(a.aggKeys, key)
		a.aggOrder = append(a.aggOrder, orderIndex)
	}
	got := a.aggs[k]
	return &plan.ColumnRef{Index: len(a.groups) + k, Name: got.Name, DataType: got.DataType, Null: got.Null}, nil
}
