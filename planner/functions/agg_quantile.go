package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// orderStatAggs are the aggregates typed by orderStat.
var orderStatAggs = map[string]bool{
	"median": true, "quantile_cont": true, "quantile_disc": true, "mode": true,
	"arg_max": true, "arg_min": true,
}

// orderStat types DuckDB's order-statistic aggregates: median(x) and quantile_cont(x, q)
// are DOUBLE (a DECIMAL keeps its type; the median of strings is the lower middle one),
// quantile_disc(x, q) and mode(x) have x's type,
// arg_max(x, y) and arg_min(x, y) have x's type. q must be a constant in [0, 1].
func orderStat(a plan.AggCall) (plan.AggCall, error) {
	want := map[string]int{"median": 1, "mode": 1}[a.Func]
	if want == 0 {
		want = 2
	}
	if len(a.Args) != want {
		return a, noMatch(a.Func, a.Args)
	}
	x := a.Args[0]
	switch a.Func {
	case "median", "quantile_cont":
		switch {
		case isDecimal(x.Type()):
			a.DataType = x.Type()
		case IsNumeric(x.Type()) || x.Type().ID() == arrow.NULL:
			a.DataType = tF64
		case IsString(x.Type()) && a.Func == "median":
			a.DataType = x.Type() // the lower middle value, as DuckDB
		default:
			return a, dberr.NotSupported(a.Func + " of " + x.Type().String())
		}
	default:
		a.DataType = x.Type()
	}
	if a.Func == "quantile_cont" || a.Func == "quantile_disc" {
		q, err := quantileArg(a)
		if err != nil {
			return a, err
		}
		a.Args = []plan.Expr{x, q}
	}
	return a, nil
}

func quantileArg(a plan.AggCall) (plan.Expr, error) {
	lit, ok := a.Args[1].(*plan.Literal)
	if !ok || !IsNumeric(lit.Type()) || !lit.Value.IsValid() {
		return nil, dberr.NotSupported(a.Func + " with a non-constant quantile")
	}
	q, err := Cast(lit, tF64)
	if err != nil {
		return nil, err
	}
	ql, ok := q.(*plan.Literal)
	var f *scalar.Float64
	if ok {
		f, ok = ql.Value.(*scalar.Float64)
	}
	if !ok {
		return nil, dberr.NotSupported(a.Func + " with a non-constant quantile")
	}
	v := f.Value
	if v < -1 || v > 1 {
		return nil, dberr.New(dberr.Binder, "QUANTILE can only take parameters in the range [-1, 1]")
	}
	if v < 0 {
		return nil, dberr.NotSupported("negative quantiles")
	}
	return ql, nil
}
