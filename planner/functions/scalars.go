package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Generic is the class of the functions typed by a rule in genericRules: string, math,
// null-handling and date functions. Their canonical names (plan.Call.Func) are the keys of
// genericRules; aliases map to them in Aliases.
const Generic Class = 100

// Aliases maps alternative SQL names to canonical function names.
var Aliases = map[string]string{
	"substr": "substring", "pow": "power", "ceiling": "ceil", "instr": "strpos",
	"position": "strpos", "extract": "date_part", "datepart": "date_part",
	"datetrunc": "date_trunc", "now": "current_timestamp", "get_current_timestamp": "current_timestamp",
	"char_length": "length", "character_length": "length", "regexp_full_match": "regexp_matches",
	"log": "log10",
}

var (
	tStr = arrow.BinaryTypes.String
	tI64 = arrow.PrimitiveTypes.Int64
	tF64 = arrow.PrimitiveTypes.Float64
	tBol = arrow.FixedWidthTypes.Boolean
	tTS  = &arrow.TimestampType{Unit: arrow.Microsecond}
)

// rule types one generic function.
type rule func(name string, args []plan.Expr) (*plan.Call, error)

var genericRules = map[string]rule{
	"lower": fixed(tStr, tStr), "upper": fixed(tStr, tStr), "reverse": fixed(tStr, tStr),
	"length": fixed(tI64, tStr),
	"trim":   optional(tStr, 1, tStr, tStr), "ltrim": optional(tStr, 1, tStr, tStr), "rtrim": optional(tStr, 1, tStr, tStr),
	"substring":   optional(tStr, 2, tStr, tI64, tI64),
	"replace":     fixed(tStr, tStr, tStr, tStr),
	"starts_with": fixed(tBol, tStr, tStr), "ends_with": fixed(tBol, tStr, tStr), "contains": fixed(tBol, tStr, tStr),
	"strpos": fixed(tI64, tStr, tStr),
	"left":   fixed(tStr, tStr, tI64), "right": fixed(tStr, tStr, tI64), "repeat": fixed(tStr, tStr, tI64),
	"lpad": fixed(tStr, tStr, tI64, tStr), "rpad": fixed(tStr, tStr, tI64, tStr),
	"split_part":     fixed(tStr, tStr, tStr, tI64),
	"regexp_matches": optional(tBol, 2, tStr, tStr, tStr),
	"regexp_replace": optional(tStr, 3, tStr, tStr, tStr, tStr),
	"ilike":          fixed(tBol, tStr, tStr), "not_like": fixed(tBol, tStr, tStr), "not_ilike": fixed(tBol, tStr, tStr),
	"concat": concat,
	"sqrt":   fixed(tF64, tF64), "ln": fixed(tF64, tF64), "log10": fixed(tF64, tF64), "log2": fixed(tF64, tF64),
	"exp": fixed(tF64, tF64), "power": fixed(tF64, tF64, tF64),
	"abs": sameNumeric, "sign": sign, "ceil": rounding, "floor": rounding, "round": rounding,
	"greatest": extreme, "least": extreme, "nullif": nullif,
	"date_part": datePart, "date_trunc": dateTrunc,
	"current_date":      fixed(arrow.FixedWidthTypes.Date32),
	"current_timestamp": fixed(&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}),
}

func init() {
	for name := range genericRules {
		Scalars[name] = Generic
	}
}

// implicit casts e to t where DuckDB would do so implicitly: NULL to anything, numbers to
// numbers, string literals to anything they parse as, dates to timestamps.
func implicit(name string, args []plan.Expr, e plan.Expr, t arrow.DataType) (plan.Expr, error) {
	from := e.Type()
	_, isLit := e.(*plan.Literal)
	switch {
	case arrow.TypeEqual(from, t):
		return e, nil
	case from.ID() == arrow.NULL,
		IsNumeric(from) && IsNumeric(t),
		isLit && IsString(from),
		from.ID() == arrow.DATE32 && t.ID() == arrow.TIMESTAMP,
		IsString(from) && IsString(t):
		return Cast(e, t)
	}
	return nil, noMatch(name, args)
}

// fixed types a function with exactly the given argument types.
func fixed(ret arrow.DataType, params ...arrow.DataType) rule {
	return optional(ret, len(params), params...)
}

// optional types a function whose first min parameters are required.
func optional(ret arrow.DataType, min int, params ...arrow.DataType) rule {
	return func(name string, args []plan.Expr) (*plan.Call, error) {
		if len(args) < min || len(args) > len(params) {
			return nil, noMatch(name, args)
		}
		out := make([]plan.Expr, len(args))
		for i, a := range args {
			c, err := implicit(name, args, a, params[i])
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return &plan.Call{Func: name, Args: out, DataType: ret, Null: anyNullable(out)}, nil
	}
}

// concat casts every argument to VARCHAR; NULL arguments are skipped (DuckDB), so the
// result is NULL only when every argument is.
func concat(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch(name, args)
	}
	out := make([]plan.Expr, len(args))
	null := true
	for i, a := range args {
		c, err := Cast(a, tStr)
		if err != nil {
			return nil, err
		}
		out[i] = c
		null = null && c.Nullable()
	}
	return &plan.Call{Func: name, Args: out, DataType: tStr, Null: null}, nil
}

func numericArg(name string, args []plan.Expr, n int) error {
	if len(args) != n {
		return noMatch(name, args)
	}
	for _, a := range args {
		if !IsNumeric(a.Type()) && a.Type().ID() != arrow.NULL {
			return noMatch(name, args)
		}
	}
	return nil
}

// sameNumeric types abs: the input's type.
func sameNumeric(name string, args []plan.Expr) (*plan.Call, error) {
	if err := numericArg(name, args, 1); err != nil {
		return nil, err
	}
	a := args[0]
	if a.Type().ID() == arrow.NULL {
		a, _ = Cast(a, tI64) // DuckDB: abs(NULL) is BIGINT
	}
	return &plan.Call{Func: name, Args: []plan.Expr{a}, DataType: a.Type(), Null: a.Nullable()}, nil
}

func sign(name string, args []plan.Expr) (*plan.Call, error) {
	if err := numericArg(name, args, 1); err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: args, DataType: arrow.PrimitiveTypes.Int8, Null: args[0].Nullable()}, nil
}

// rounding types ceil, floor, round and trunc as DuckDB does: FLOAT and DOUBLE keep their
// type, integers stay themselves for round and trunc and become DOUBLE for ceil and floor,
// decimals keep their width with scale 0 (or the constant digits); round(NULL) and
// trunc(NULL) are BIGINT.
func rounding(name string, args []plan.Expr) (*plan.Call, error) {
	max := 1
	if name == "round" || name == "trunc" {
		max = 2
	}
	if len(args) < 1 || len(args) > max || !IsNumeric(args[0].Type()) && args[0].Type().ID() != arrow.NULL {
		return nil, noMatch(name, args)
	}
	x := args[0]
	if x.Type().ID() == arrow.NULL && max == 2 {
		x, _ = Cast(x, tI64) // DuckDB: round(NULL) and trunc(NULL) are BIGINT
	}
	out := []plan.Expr{x}
	if len(args) == 2 {
		d, err := implicit(name, args, args[1], arrow.PrimitiveTypes.Int32)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	var ret arrow.DataType
	switch t := x.Type().(type) {
	case *arrow.Decimal128Type:
		scale := int32(0)
		if len(out) == 2 {
			lit, ok := out[1].(*plan.Literal)
			n, isInt := int64(0), false
			if ok {
				n, isInt = IntValue(lit.Value)
			}
			if !isInt {
				return nil, dberr.NotSupported("round of a DECIMAL to a non-constant number of digits")
			}
			scale = int32(min(max64(n, 0), int64(t.Scale)))
		}
		ret = &arrow.Decimal128Type{Precision: t.Precision, Scale: scale}
	default:
		switch {
		case IsInteger(x.Type()) && max == 2:
			ret = x.Type()
		case x.Type().ID() == arrow.FLOAT32:
			ret = x.Type()
		default:
			c, _ := Cast(x, tF64)
			out[0], ret = c, tF64
		}
	}
	return &plan.Call{Func: name, Args: out, DataType: ret, Null: anyNullable(out)}, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// extreme types greatest and least: the common type of the arguments; NULLs are skipped.
func extreme(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch(name, args)
	}
	out, common, err := unify(name, args)
	if err != nil {
		return nil, err
	}
	null := true
	for _, a := range out {
		null = null && a.Nullable()
	}
	return &plan.Call{Func: name, Args: out, DataType: common, Null: null}, nil
}

// nullif(a, b) has a's type; b is cast to it (or both meet at their common type).
func nullif(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	if _, err := comparison("equal", args); err != nil {
		return nil, noMatch(name, args)
	}
	b, err := Cast(args[1], args[0].Type())
	if err != nil {
		return nil, err
	}
	return &plan.Call{Func: name, Args: []plan.Expr{args[0], b}, DataType: args[0].Type(), Null: true}, nil
}

// DateParts are the fields date_part and EXTRACT accept.
var DateParts = map[string]bool{
	"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true,
	"dow": true, "doy": true, "quarter": true, "week": true, "epoch": true,
}

// DateTruncUnits are the units date_trunc accepts.
var DateTruncUnits = map[string]bool{
	"year": true, "quarter": true, "month": true, "week": true, "day": true, "hour": true,
	"minute": true, "second": true,
}

// unitArg checks that args[0] is a string literal naming one of units and lower-cases it.
func unitArg(name string, args []plan.Expr, units map[string]bool) (plan.Expr, error) {
	lit, ok := args[0].(*plan.Literal)
	if !ok || !IsString(lit.Type()) || !lit.Value.IsValid() {
		return nil, dberr.NotSupported(name + " with a non-constant part name")
	}
	u := strings.ToLower(lit.Value.String())
	if !units[u] {
		return nil, dberr.New(dberr.Binder, "%s: unsupported part %q", name, u)
	}
	return &plan.Literal{Value: stringScalar(u)}, nil
}

func temporalArg(name string, args []plan.Expr) (plan.Expr, error) {
	x := args[1]
	switch {
	case isTemporal(x.Type()):
		return x, nil
	case x.Type().ID() == arrow.NULL:
		return Cast(x, tTS)
	}
	if lit, ok := x.(*plan.Literal); ok && IsString(lit.Type()) {
		return Cast(x, tTS)
	}
	return nil, noMatch(name, args)
}

// datePart types date_part(part, date|timestamp): BIGINT, DOUBLE for epoch.
func datePart(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	u, err := unitArg(name, args, DateParts)
	if err != nil {
		return nil, err
	}
	x, err := temporalArg(name, args)
	if err != nil {
		return nil, err
	}
	ret := arrow.DataType(tI64)
	if u.(*plan.Literal).Value.String() == "epoch" {
		ret = tF64
	}
	return &plan.Call{Func: name, Args: []plan.Expr{u, x}, DataType: ret, Null: x.Nullable()}, nil
}

// dateTrunc types date_trunc(unit, date|timestamp): TIMESTAMP, as DuckDB returns.
func dateTrunc(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	u, err := unitArg(name, args, DateTruncUnits)
	if err != nil {
		return nil, err
	}
	x, err := temporalArg(name, args)
	if err != nil {
		return nil, err
	}
	ret := arrow.DataType(tTS)
	if t, ok := x.Type().(*arrow.TimestampType); ok {
		ret = t
	}
	return &plan.Call{Func: name, Args: []plan.Expr{u, x}, DataType: ret, Null: x.Nullable()}, nil
}

func stringScalar(s string) scalar.Scalar { return scalar.NewStringScalar(s) }
