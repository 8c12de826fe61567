package functions

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// Class groups scalar functions that share typing rules.
type Class int

// The scalar function classes.
const (
	Comparison Class = iota + 1 // equal, not_equal, lt, lte, gt, gte
	Boolean                     // and, or, not
	Arithmetic                  // add, subtract, multiply, divide, modulus, negate
	NullTest                    // is_null, is_not_null
	Pattern                     // like
	Coalesce                    // coalesce
	CaseWhen                    // case: [cond1, val1, ..., else]
)

// Scalars maps each canonical scalar function name to its class. These are exactly the
// names plan.Call.Func may hold.
var Scalars = map[string]Class{
	"equal": Comparison, "not_equal": Comparison, "lt": Comparison, "lte": Comparison,
	"gt": Comparison, "gte": Comparison,
	"is_distinct_from": Comparison, "is_not_distinct_from": Comparison,
	"and": Boolean, "or": Boolean, "not": Boolean,
	"add": Arithmetic, "subtract": Arithmetic, "multiply": Arithmetic, "divide": Arithmetic,
	"modulus": Arithmetic, "negate": Arithmetic,
	"is_null": NullTest, "is_not_null": NullTest,
	"like":     Pattern,
	"coalesce": Coalesce,
	"case":     CaseWhen,
}

// Aggregates are the canonical aggregate function names plan.AggCall.Func may hold.
// single_value is the aggregate of a scalar subquery: its one input value, NULL for no
// rows, and the error "More than one row returned by a subquery used as an expression"
// for more than one row (DuckDB's behaviour).
var Aggregates = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true, "single_value": true,
	"stddev_samp": true, "stddev_pop": true, "var_samp": true, "var_pop": true,
	"bool_and": true, "bool_or": true, "string_agg": true, "list": true,
	"approx_count_distinct": true, "first": true, "last": true, "any_value": true,
	"median": true, "quantile_cont": true, "quantile_disc": true, "mode": true,
	"arg_max": true, "arg_min": true,
}

// AggregateAliases maps alternative aggregate names to canonical ones.
var AggregateAliases = map[string]string{
	"stddev": "stddev_samp", "variance": "var_samp", "array_agg": "list",
	"listagg": "string_agg", "group_concat": "string_agg", "arbitrary": "first",
	"max_by": "arg_max", "min_by": "arg_min", "argmax": "arg_max", "argmin": "arg_min",
	"quantile": "quantile_disc",
}

func typeNames(args []plan.Expr) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.Type().String()
	}
	return strings.Join(parts, ", ")
}

func noMatch(name string, args []plan.Expr) error {
	return dberr.New(dberr.Binder, "no function matches the given name and argument types '%s(%s)'", name, typeNames(args))
}

// NewCall builds a call of the canonical scalar function name over args. It applies the
// implicit casts (integer literals take the other operand's integer type when they fit,
// string literals are parsed as the other operand's type, then all operands meet at their
// CommonType) and computes the result type and nullability.
func NewCall(name string, args []plan.Expr) (*plan.Call, error) {
	class, ok := Scalars[name]
	if !ok {
		return nil, dberr.New(dberr.Binder, "scalar function %s does not exist", name)
	}
	switch class {
	case Comparison:
		return comparison(name, args)
	case Boolean:
		return boolean(name, args)
	case Arithmetic:
		return arithmetic(name, args)
	case NullTest:
		if len(args) != 1 {
			return nil, noMatch(name, args)
		}
		return &plan.Call{Func: name, Args: args, DataType: arrow.FixedWidthTypes.Boolean}, nil
	case Pattern:
		return like(args)
	case Coalesce:
		return coalesce(args)
	case Generic:
		return genericRules[name](name, args)
	}
	return caseWhen(args)
}

func anyNullable(args []plan.Expr) bool {
	for _, a := range args {
		if a.Nullable() {
			return true
		}
	}
	return false
}

// unify casts args to one common type, adapting literals to the non-literal operands first.
func unify(name string, args []plan.Expr) ([]plan.Expr, arrow.DataType, error) {
	var target arrow.DataType
	for _, a := range args {
		if _, isLit := a.(*plan.Literal); !isLit {
			if target == nil {
				target = a.Type()
			} else if t, ok := CommonType(target, a.Type()); ok {
				target = t
			}
		}
	}
	out := make([]plan.Expr, len(args))
	copy(out, args)
	if target != nil {
		for i, a := range out {
			adapted, err := adaptLiteral(a, target)
			if err != nil {
				return nil, nil, err
			}
			out[i] = adapted
		}
	}
	common := out[0].Type()
	for _, a := range out[1:] {
		t, ok := CommonType(common, a.Type())
		if !ok {
			return nil, nil, noMatch(name, args)
		}
		common = t
	}
	for i, a := range out {
		c, err := Cast(a, common)
		if err != nil {
			return nil, nil, err
		}
		out[i] = c
	}
	return out, common, nil
}

// adaptLiteral gives an integer or string literal the type of the operand it meets.
func adaptLiteral(e plan.Expr, target arrow.DataType) (plan.Expr, error) {
	lit, ok := e.(*plan.Literal)
	if !ok || !lit.Value.IsValid() {
		return e, nil
	}
	from := lit.Type()
	switch {
	case IsInteger(from) && IsInteger(target):
		if n, ok := IntValue(lit.Value); ok && fitsInteger(n, target) {
			return Cast(e, target)
		}
	case IsString(from) && (!IsString(target) || target.ID() == arrow.LARGE_STRING):
		return Cast(e, target)
	case IsInteger(from) && target.ID() == arrow.DECIMAL128:
		if out, err := Cast(e, target); err == nil {
			if _, folded := out.(*plan.Literal); folded {
				return out, nil
			}
		}
	}
	return e, nil
}

func comparison(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch(name, args)
	}
	out, _, err := unify(name, args)
	if err != nil {
		return nil, err
	}
	null := anyNullable(out) && name != "is_distinct_from" && name != "is_not_distinct_from"
	return &plan.Call{Func: name, Args: out, DataType: arrow.FixedWidthTypes.Boolean, Null: null}, nil
}

func boolean(name string, args []plan.Expr) (*plan.Call, error) {
	if (name == "not" && len(args) != 1) || len(args) == 0 {
		return nil, noMatch(name, args)
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		switch a.Type().ID() {
		case arrow.BOOL:
			out[i] = a
		case arrow.NULL:
			out[i], _ = Cast(a, arrow.FixedWidthTypes.Boolean)
		default:
			if lit, ok := a.(*plan.Literal); ok && IsString(lit.Type()) {
				c, err := Cast(a, arrow.FixedWidthTypes.Boolean)
				if err != nil {
					return nil, err
				}
				out[i] = c
				continue
			}
			return nil, noMatch(name, args)
		}
	}
	return &plan.Call{Func: name, Args: out, DataType: arrow.FixedWidthTypes.Boolean, Null: anyNullable(out)}, nil
}

func arithmetic(name string, args []plan.Expr) (*plan.Call, error) {
	want := 2
	if name == "negate" {
		want = 1
	}
	if len(args) != want {
		return nil, noMatch(name, args)
	}
	for _, a := range args {
		if !IsNumeric(a.Type()) && a.Type().ID() != arrow.NULL {
			if isTemporal(a.Type()) || a.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO {
				return dateArithmetic(name, args)
			}
			return nil, noMatch(name, args)
		}
	}
	if name == "divide" {
		tF64 := arrow.PrimitiveTypes.Float64
		l, err := Cast(args[0], tF64)
		if err != nil {
			return nil, err
		}
		r, err := Cast(args[1], tF64)
		if err != nil {
			return nil, err
		}
		// DuckDB: division by zero yields NULL.
		return &plan.Call{Func: name, Args: []plan.Expr{l, r}, DataType: tF64, Null: true}, nil
	}
	out, common, err := unify(name, args)
	if err != nil {
		return nil, err
	}
	if common.ID() == arrow.NULL {
		common = arrow.PrimitiveTypes.Int32
		for i := range out {
			out[i], _ = Cast(out[i], common)
		}
	}
	if d, ok := common.(*arrow.Decimal128Type); ok {
		return decimalArithmetic(name, args, out, d)
	}
	return &plan.Call{Func: name, Args: out, DataType: common, Null: anyNullable(out) || name == "modulus"}, nil
}

// decimalArithmetic types DuckDB's decimal arithmetic: + and - at the common scale with one
// more digit (capped at 38), * over the operands as they are (integers as decimal(w,0)) at
// the sum of the precisions and scales (precision capped at 38). unified holds the operands
// cast to the common decimal type d.
func decimalArithmetic(name string, args, unified []plan.Expr, d *arrow.Decimal128Type) (*plan.Call, error) {
	switch name {
	case "add", "subtract":
		dt := &arrow.Decimal128Type{Precision: min(d.Precision+1, 38), Scale: d.Scale}
		return &plan.Call{Func: name, Args: unified, DataType: dt, Null: anyNullable(unified)}, nil
	case "multiply":
		out := make([]plan.Expr, len(args))
		var prec, scale int32
		for i, a := range args {
			p, s := decimalParts(a.Type())
			if !isDecimal(a.Type()) {
				c, err := Cast(a, &arrow.Decimal128Type{Precision: p, Scale: s})
				if err != nil {
					return nil, err
				}
				a = c
			}
			out[i] = a
			prec, scale = prec+p, scale+s
		}
		if scale > 38 {
			return nil, dberr.New(dberr.Binder, "Needed scale %d to accurately represent the multiplication result, but this is out of range of the DECIMAL type. Max scale is 38", scale)
		}
		dt := &arrow.Decimal128Type{Precision: min(prec, 38), Scale: scale}
		return &plan.Call{Func: name, Args: out, DataType: dt, Null: anyNullable(out)}, nil
	}
	return &plan.Call{Func: name, Args: unified, DataType: d, Null: anyNullable(unified) || name == "modulus"}, nil
}

func like(args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 {
		return nil, noMatch("like", args)
	}
	out := make([]plan.Expr, 2)
	for i, a := range args {
		switch {
		case IsString(a.Type()):
			out[i] = a
		case a.Type().ID() == arrow.NULL:
			out[i], _ = Cast(a, arrow.BinaryTypes.String)
		default:
			return nil, noMatch("like", args)
		}
	}
	return &plan.Call{Func: "like", Args: out, DataType: arrow.FixedWidthTypes.Boolean, Null: anyNullable(out)}, nil
}

func coalesce(args []plan.Expr) (*plan.Call, error) {
	if len(args) == 0 {
		return nil, noMatch("coalesce", args)
	}
	out, common, err := unify("coalesce", args)
	if err != nil {
		return nil, err
	}
	null := true
	for _, a := range out {
		null = null && a.Nullable()
	}
	return &plan.Call{Func: "coalesce", Args: out, DataType: common, Null: null}, nil
}

// caseWhen types CASE as a call: [cond1, val1, ..., condN, valN, else].
func caseWhen(args []plan.Expr) (*plan.Call, error) {
	if len(args) < 3 || len(args)%2 == 0 {
		return nil, noMatch("case", args)
	}
	var vals []plan.Expr
	out := make([]plan.Expr, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		c := args[i]
		if c.Type().ID() == arrow.NULL {
			c, _ = Cast(c, arrow.FixedWidthTypes.Boolean)
		}
		if c.Type().ID() != arrow.BOOL {
			return nil, dberr.New(dberr.Binder, "CASE condition must be BOOLEAN, not %s", c.Type())
		}
		out[i] = c
		vals = append(vals, args[i+1])
	}
	vals = append(vals, args[len(args)-1])
	uv, common, err := unify("case", vals)
	if err != nil {
		return nil, err
	}
	for k, v := range uv[:len(uv)-1] {
		out[2*k+1] = v
	}
	out[len(out)-1] = uv[len(uv)-1]
	return &plan.Call{Func: "case", Args: out, DataType: common, Null: anyNullable(uv)}, nil
}

// dateArithmetic types DuckDB's date arithmetic: date ± integer → date, date - date →
// BIGINT (days), date|timestamp ± interval → timestamp, interval + date|timestamp →
// timestamp, timestamp - timestamp → interval.
func dateArithmetic(name string, args []plan.Expr) (*plan.Call, error) {
	if len(args) != 2 || (name != "add" && name != "subtract") {
		return nil, noMatch(name, args)
	}
	a, b := args[0], args[1]
	ta, tb := a.Type().ID(), b.Type().ID()
	isIv := func(id arrow.Type) bool { return id == arrow.INTERVAL_MONTH_DAY_NANO }
	null := anyNullable(args)
	switch {
	case ta == arrow.DATE32 && IsInteger(b.Type()):
		bi, _ := Cast(b, arrow.PrimitiveTypes.Int32)
		return &plan.Call{Func: name, Args: []plan.Expr{a, bi}, DataType: a.Type(), Null: null}, nil
	case name == "add" && IsInteger(a.Type()) && tb == arrow.DATE32:
		ai, _ := Cast(a, arrow.PrimitiveTypes.Int32)
		return &plan.Call{Func: name, Args: []plan.Expr{b, ai}, DataType: b.Type(), Null: null}, nil
	case name == "subtract" && ta == arrow.DATE32 && tb == arrow.DATE32:
		return &plan.Call{Func: name, Args: args, DataType: tI64, Null: null}, nil
	case isTemporal(a.Type()) && isIv(tb):
		x, err := Cast(a, timestampOf(a.Type()))
		if err != nil {
			return nil, err
		}
		return &plan.Call{Func: name, Args: []plan.Expr{x, b}, DataType: x.Type(), Null: null}, nil
	case name == "add" && isIv(ta) && isTemporal(b.Type()):
		x, err := Cast(b, timestampOf(b.Type()))
		if err != nil {
			return nil, err
		}
		return &plan.Call{Func: name, Args: []plan.Expr{x, a}, DataType: x.Type(), Null: null}, nil
	case isIv(ta) && isIv(tb):
		return &plan.Call{Func: name, Args: args, DataType: a.Type(), Null: null}, nil
	case name == "subtract" && ta == arrow.TIMESTAMP && tb == arrow.TIMESTAMP:
		out, _, err := unify(name, args)
		if err != nil {
			return nil, err
		}
		return &plan.Call{Func: name, Args: out, DataType: arrow.FixedWidthTypes.MonthDayNanoInterval, Null: null}, nil
	}
	return nil, noMatch(name, args)
}

// timestampOf is t when it is a timestamp, else (a date) DuckDB's TIMESTAMP.
func timestampOf(t arrow.DataType) arrow.DataType {
	if t.ID() == arrow.TIMESTAMP {
		return t
	}
	return tTS
}
