package bind

import (
	"fmt"
	"strings"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/ast"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// isAggregate reports whether e is a call of an aggregate function.
func isAggregate(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	return ok && (functions.Aggregates[f.Name] || unsupportedAggregates[f.Name])
}

func containsAggregate(e ast.Expr) bool { return ast.Any(e, isAggregate) }

// unsupportedAggregates are DuckDB aggregates flightd does not run yet.
var unsupportedAggregates = map[string]bool{
	"any_value": true, "first": true, "last": true, "bool_and": true, "bool_or": true,
	"string_agg": true, "list": true, "array_agg": true, "stddev": true, "stddev_pop": true,
	"stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true, "median": true,
	"quantile": true, "quantile_cont": true, "quantile_disc": true, "mode": true,
	"approx_count_distinct": true, "arg_min": true, "arg_max": true, "histogram": true,
	"product": true, "bit_and": true, "bit_or": true, "count_star": true, "fsum": true,
}

// unsupportedScalars are common DuckDB scalar functions flightd does not run yet; any
// other unknown name is reported the way DuckDB reports it.
var unsupportedScalars = map[string]bool{
	"lower": true, "upper": true, "length": true, "substring": true, "substr": true,
	"concat": true, "trim": true, "ltrim": true, "rtrim": true, "replace": true,
	"starts_with": true, "ends_with": true, "contains": true, "regexp_matches": true,
	"abs": true, "round": true, "floor": true, "ceil": true, "sqrt": true, "power": true,
	"pow": true, "ln": true, "log": true, "exp": true, "greatest": true, "least": true,
	"nullif": true, "now": true, "current_date": true, "current_timestamp": true,
	"date_trunc": true, "date_part": true, "extract": true, "year": true, "month": true,
	"day": true, "strftime": true, "strptime": true, "array_distance": true,
	"array_cosine_similarity": true, "list_distance": true, "if": true, "hash": true,
	"md5": true, "random": true, "left": true, "right": true, "split_part": true,
}

func (eb *exprBinder) bindFunc(e *ast.FuncCall) (plan.Expr, error) {
	if isAggregate(e) {
		if unsupportedAggregates[e.Name] {
			return nil, dberr.NotSupported(fmt.Sprintf("aggregate function %s", e.Name))
		}
		if eb.clause == "aggregate function arguments" {
			return nil, dberr.New(dberr.Binder, "aggregate function calls cannot be nested")
		}
		return nil, dberr.New(dberr.Binder, "%s cannot contain aggregates!", eb.clause)
	}
	if e.Star {
		return nil, dberr.New(dberr.Binder, "%s(*) is only valid for count", e.Name)
	}
	if e.Distinct {
		return nil, dberr.New(dberr.Binder, "DISTINCT is only allowed in aggregate functions, not %s", e.Name)
	}
	switch e.Name {
	case "coalesce", "ifnull":
		if e.Name == "ifnull" && len(e.Args) != 2 {
			return nil, dberr.New(dberr.Binder, "ifnull takes two arguments")
		}
		return eb.call("coalesce", e.Args...)
	}
	if unsupportedScalars[e.Name] {
		return nil, dberr.NotSupported(fmt.Sprintf("function %s", e.Name))
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
		return nil, dberr.NotSupported(fmt.Sprintf("aggregate function %s", f.Name))
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
	agg, err := functions.NewAgg(f.Name, args, f.Distinct, ast.Format(f))
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%v|%v", agg.Func, agg.Distinct, args)
	k := len(a.aggs)
	for i, existing := range a.aggKeys {
		if existing == key {
			k = i
		}
	}
	if k == len(a.aggs) {
		a.aggs = append(a.aggs, agg)
		a.aggKeys = append(a.aggKeys, key)
	}
	got := a.aggs[k]
	return &plan.ColumnRef{Index: len(a.groups) + k, Name: got.Name, DataType: got.DataType, Null: got.Null}, nil
}
