package functions

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/planner/plan"
)

var (
	tI32 = arrow.PrimitiveTypes.Int32
	tDay = arrow.FixedWidthTypes.Date32
	// tHuge stands for DuckDB's HUGEINT (factorial's result): DECIMAL(38, 0).
	tHuge = &arrow.Decimal128Type{Precision: 38, Scale: 0}
)

// moreRules are the trigonometric, number-theory, float-class, character and calendar
// functions, typed as DuckDB types them.
var moreRules = map[string]rule{
	"pi":  fixed(tF64),
	"sin": fixed(tF64, tF64), "cos": fixed(tF64, tF64), "tan": fixed(tF64, tF64),
	"asin": fixed(tF64, tF64), "acos": fixed(tF64, tF64), "atan": fixed(tF64, tF64),
	"cot": fixed(tF64, tF64), "atan2": fixed(tF64, tF64, tF64),
	"degrees": fixed(tF64, tF64), "radians": fixed(tF64, tF64), "cbrt": fixed(tF64, tF64),
	"factorial": fixed(tHuge, tI32),
	"gcd":       fixed(tI64, tI64, tI64), "lcm": fixed(tI64, tI64, tI64),
	"isnan": fixed(tBol, tF64), "isinf": fixed(tBol, tF64), "isfinite": fixed(tBol, tF64),
	"ascii": fixed(tI32, tStr), "chr": fixed(tStr, tI32),
	"trunc":     rounding,
	"last_day":  lastDay,
	"date_diff": dateDiff,
	"strftime":  strftime,
}

// moreAliases are DuckDB's other names for moreRules' functions.
var moreAliases = map[string]string{"datediff": "date_diff", "ord": "ascii"}

func init() {
	for name, r := range moreRules {
		genericRules[name] = r
		Scalars[name] = Generic
	}
	for a, c := range moreAliases {
		Aliases[a] = c
	}
}

// lastDay types last_day(date|timestamp): DATE.
func lastDay(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 1 {
		return nil, noMatch(name, args)
	}
	x, err := temporalArg(name, []plan.Expr{args[0], args[0]})
	if err != nil {
		return nil, noMatch(name, args)
	}
	return &plan.Call{Func: name, Args: []plan.Expr{x}, DataType: tDay, Null: x.Nullable()}, nil
}

// dateDiff types date_diff(part, start, end): BIGINT; start and end meet at their common
// date or timestamp type.
func dateDiff(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 3 {
		return nil, noMatch(name, args)
	}
	part, err := implicit(name, args, args[0], tStr)
	if err != nil {
		return nil, err
	}
	ends := args[1:]
	for _, e := range ends {
		if !isTemporal(e.Type()) && e.Type().ID() != arrow.NULL {
			return nil, noMatch(name, args)
		}
	}
	out, _, err := unify(name, ends)
	if err != nil {
		return nil, err
	}
	all := []plan.Expr{part, out[0], out[1]}
	return &plan.Call{Func: name, Args: all, DataType: tI64, Null: anyNullable(all)}, nil
}

// strftime types strftime(date|timestamp, format) (either order, as DuckDB accepts):
// VARCHAR; the value comes first in the call.
func strftime(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	x, f := args[0], args[1]
	if IsString(x.Type()) && isTemporal(f.Type()) {
		x, f = f, x
	}
	if !isTemporal(x.Type()) && x.Type().ID() != arrow.NULL || !IsString(f.Type()) && f.Type().ID() != arrow.NULL {
		return nil, noMatch(name, args)
	}
	x, _ = Cast(x, timestampOf(x.Type()))
	f, _ = Cast(f, tStr)
	all := []plan.Expr{x, f}
	return &plan.Call{Func: name, Args: all, DataType: tStr, Null: anyNullable(all)}, nil
}
