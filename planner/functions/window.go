package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// WindowOnly are the functions that exist only as window functions (plan.WindowFunc.Func);
// aggregates (Aggregates) may be used as window functions too.
var WindowOnly = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true,
	"cume_dist": true, "ntile": true, "lag": true, "lead": true, "first_value": true,
	"last_value": true, "nth_value": true,
}

// NewWindowFunc types a ranking or navigation window function and casts its arguments:
// row_number, rank, dense_rank, ntile → BIGINT; percent_rank, cume_dist → DOUBLE;
// lag/lead(x [, offset [, default]]) and first_value/last_value/nth_value(x [, n]) → x's type.
func NewWindowFunc(name string, args []plan.Expr) ([]plan.Expr, arrow.DataType, bool, error) {
	i64 := arrow.PrimitiveTypes.Int64
	switch name {
	case "row_number", "rank", "dense_rank":
		if len(args) != 0 {
			return nil, nil, false, noMatch(name, args)
		}
		return nil, i64, false, nil
	case "percent_rank", "cume_dist":
		if len(args) != 0 {
			return nil, nil, false, noMatch(name, args)
		}
		return nil, arrow.PrimitiveTypes.Float64, false, nil
	case "ntile":
		out, err := castArgs(name, args, 1, 1, i64)
		return out, i64, true, err
	case "lag", "lead":
		return navigation(name, args, 3)
	case "first_value", "last_value", "nth_value":
		min := 1
		if name == "nth_value" {
			min = 2
		}
		if len(args) < min {
			return nil, nil, false, noMatch(name, args)
		}
		return navigation(name, args, min)
	}
	return nil, nil, false, dberr.New(dberr.Catalog, "window function %s does not exist", name)
}

// castArgs checks the argument count and casts every argument to t.
func castArgs(name string, args []plan.Expr, min, max int, t arrow.DataType) ([]plan.Expr, error) {
	if len(args) < min || len(args) > max {
		return nil, noMatch(name, args)
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		c, err := implicit(name, args, a, t)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// navigation types x [, int offset [, default of x's type]].
func navigation(name string, args []plan.Expr, max int) ([]plan.Expr, arrow.DataType, bool, error) {
	if len(args) < 1 || len(args) > max {
		return nil, nil, false, noMatch(name, args)
	}
	x := args[0]
	t := x.Type()
	if t.ID() == arrow.NULL && len(args) > 2 {
		t = arrow.PrimitiveTypes.Int32 // a default value needs a type; without one the result is NULL-typed, as in DuckDB
	}
	out := []plan.Expr{x}
	if len(args) > 1 {
		off, err := implicit(name, args, args[1], arrow.PrimitiveTypes.Int64)
		if err != nil {
			return nil, nil, false, err
		}
		out = append(out, off)
	}
	if len(args) > 2 {
		def, err := Cast(args[2], t)
		if err != nil {
			return nil, nil, false, err
		}
		out = append(out, def)
	}
	x0, err := Cast(x, t)
	if err != nil {
		return nil, nil, false, err
	}
	out[0] = x0
	return out, t, true, nil
}
