package substrait

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

func (c *consumer) expr(e *pb.Expression, in *arrow.Schema, path string) (plan.Expr, error) {
	switch k := e.GetRexType().(type) {
	case *pb.Expression_Selection:
		return c.selection(k.Selection, in, path) // struct.go
	case *pb.Expression_Literal_:
		s, err := scalarOf(k.Literal, path)
		if err != nil {
			return nil, err
		}
		return &plan.Literal{Value: s}, nil
	case *pb.Expression_ScalarFunction_:
		return c.scalarFunction(k.ScalarFunction, in, path)
	case *pb.Expression_IfThen_:
		return c.ifThen(k.IfThen, in, path)
	case *pb.Expression_Cast_:
		return c.cast(k.Cast, in, path)
	case *pb.Expression_SingularOrList_:
		return c.orList(k.SingularOrList, in, path)
	case *pb.Expression_Subquery_:
		return c.subquery(k.Subquery, path+".subquery")
	case nil:
		return nil, invalid(path, "missing expression")
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", e.GetRexType()), "*substraitpb.Expression_")
	return nil, dberr.NotSupported(fmt.Sprintf("Substrait %s expressions (at %s)", strings.TrimSuffix(name, "_"), path))
}

// fieldOf converts a direct reference to a top-level field of the input.
func fieldOf(f *pb.Expression_FieldReference, in *arrow.Schema, path string) (plan.Expr, error) {
	if f.GetOuterReference() != nil || f.GetLambdaParameterReference() != nil || f.GetExpression() != nil {
		return nil, dberr.NotSupported("Substrait references other than root references (at " + path + ")")
	}
	sf := f.GetDirectReference().GetStructField()
	if sf == nil {
		return nil, invalid(path, "field reference is not a direct struct field reference")
	}
	if sf.GetChild() != nil {
		return nil, dberr.NotSupported("nested field references (at " + path + ")")
	}
	i := int(sf.GetField())
	if i < 0 || i >= len(in.Fields()) {
		return nil, invalid(path, "field %d out of range (input has %d)", i, len(in.Fields()))
	}
	fd := in.Field(i)
	return &plan.ColumnRef{Index: i, Name: fd.Name, DataType: fd.Type, Null: fd.Nullable}, nil
}

func (c *consumer) args(fas []*pb.FunctionArgument, old []*pb.Expression, in *arrow.Schema, path string) ([]plan.Expr, error) {
	var out []plan.Expr
	for i, a := range fas {
		v := a.GetValue()
		if v == nil {
			return nil, dberr.NotSupported(fmt.Sprintf("non-value function arguments (at %s.arguments[%d])", path, i))
		}
		e, err := c.expr(v, in, fmt.Sprintf("%s.arguments[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	for i, v := range old {
		e, err := c.expr(v, in, fmt.Sprintf("%s.args[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (c *consumer) funcName(ref uint32, path string) (string, error) {
	name, ok := c.funcs[ref]
	if !ok {
		return "", invalid(path, "function reference %d is not declared", ref)
	}
	return name, nil
}

func (c *consumer) scalarFunction(f *pb.Expression_ScalarFunction, in *arrow.Schema, path string) (plan.Expr, error) {
	name, err := c.funcName(f.GetFunctionReference(), path)
	if err != nil {
		return nil, err
	}
	if canonical, ok := functions.Aliases[name]; ok {
		name = canonical
	}
	if name == "named" { // struct.go
		args, err := c.args(f.GetArguments(), f.GetArgs(), in, path)
		if err != nil {
			return nil, err
		}
		return consumeNamed(args, path)
	}
	if _, ok := functions.Scalars[name]; !ok || name == "case" {
		return nil, dberr.NotSupported(fmt.Sprintf("Substrait function %s (at %s)", name, path))
	}
	args, err := c.args(f.GetArguments(), f.GetArgs(), in, path)
	if err != nil {
		return nil, err
	}
	if args, err = dropNullEscape(name, args, path); err != nil {
		return nil, err
	}
	if name == "divide" && len(args) == 2 && functions.IsInteger(args[0].Type()) && functions.IsInteger(args[1].Type()) {
		return integerDivide(args, path) // intdiv.go
	}
	call, err := functions.NewCall(name, args)
	if err != nil {
		return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
	}
	return call, nil
}

func (c *consumer) ifThen(it *pb.Expression_IfThen, in *arrow.Schema, path string) (plan.Expr, error) {
	var args []plan.Expr
	for i, clause := range it.GetIfs() {
		cond, err := c.expr(clause.GetIf(), in, fmt.Sprintf("%s.ifs[%d].if", path, i))
		if err != nil {
			return nil, err
		}
		then, err := c.expr(clause.GetThen(), in, fmt.Sprintf("%s.ifs[%d].then", path, i))
		if err != nil {
			return nil, err
		}
		args = append(args, cond, then)
	}
	if len(args) == 0 {
		return nil, invalid(path, "if-then without clauses")
	}
	var els plan.Expr = &plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}
	if it.GetElse() != nil {
		var err error
		if els, err = c.expr(it.GetElse(), in, path+".else"); err != nil {
			return nil, err
		}
	}
	call, err := functions.NewCall("case", append(args, els))
	if err != nil {
		return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
	}
	return call, nil
}

func (c *consumer) cast(x *pb.Expression_Cast, in *arrow.Schema, path string) (plan.Expr, error) {
	input, err := c.expr(x.GetInput(), in, path+".input")
	if err != nil {
		return nil, err
	}
	t, err := fromType(x.GetType())
	if err != nil {
		return nil, wrapType(err, path)
	}
	return &plan.Cast{Input: input, DataType: t, Try: x.GetFailureBehavior() == pb.Expression_Cast_FAILURE_BEHAVIOR_RETURN_NULL}, nil
}

func wrapType(err error, path string) error {
	if _, ok := dberr.KindOf(err); ok {
		return err
	}
	return invalid(path, "%v", err)
}

// orList expands value IN (options) into equal(...) OR equal(...).
func (c *consumer) orList(o *pb.Expression_SingularOrList, in *arrow.Schema, path string) (plan.Expr, error) {
	v, err := c.expr(o.GetValue(), in, path+".value")
	if err != nil {
		return nil, err
	}
	var acc plan.Expr
	for i, opt := range o.GetOptions() {
		x, err := c.expr(opt, in, fmt.Sprintf("%s.options[%d]", path, i))
		if err != nil {
			return nil, err
		}
		eq, err := functions.NewCall("equal", []plan.Expr{v, x})
		if err == nil && acc != nil {
			acc, err = functions.NewCall("or", []plan.Expr{acc, eq})
		} else if err == nil {
			acc = eq
		}
		if err != nil {
			return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
		}
	}
	if acc == nil {
		return nil, invalid(path, "IN list without options")
	}
	return acc, nil
}

func (c *consumer) measure(m *pb.AggregateRel_Measure, in *arrow.Schema, path string) (plan.AggCall, error) {
	f := m.GetMeasure()
	if f == nil {
		return plan.AggCall{}, invalid(path, "measure without a function")
	}
	name, err := c.funcName(f.GetFunctionReference(), path)
	if err != nil {
		return plan.AggCall{}, err
	}
	if !functions.Aggregates[name] {
		return plan.AggCall{}, dberr.NotSupported(fmt.Sprintf("Substrait aggregate function %s (at %s)", name, path))
	}
	if len(f.GetSorts()) > 0 {
		return plan.AggCall{}, dberr.NotSupported("ordered aggregates (at " + path + ")")
	}
	args, err := c.args(f.GetArguments(), f.GetArgs(), in, path)
	if err != nil {
		return plan.AggCall{}, err
	}
	distinct := f.GetInvocation() == pb.AggregateFunction_AGGREGATION_INVOCATION_DISTINCT
	agg, err := functions.NewAgg(name, args, distinct, name)
	if err != nil {
		return plan.AggCall{}, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
	}
	if m.GetFilter() != nil {
		if agg.Filter, err = c.predicate(m.GetFilter(), in, path+".filter"); err != nil {
			return plan.AggCall{}, err
		}
	}
	return agg, nil
}

func intOf(l *plan.Literal) (int64, bool) { return functions.IntValue(l.Value) }

// scalarOf decodes a literal.
func scalarOf(l *pb.Expression_Literal, path string) (scalar.Scalar, error) {
	switch v := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_Null:
		t, err := fromType(v.Null)
		if err != nil {
			return nil, wrapType(err, path)
		}
		return scalar.MakeNullScalar(t), nil
	case *pb.Expression_Literal_Boolean:
		return scalar.NewBooleanScalar(v.Boolean), nil
	case *pb.Expression_Literal_I8:
		return scalar.NewInt8Scalar(int8(v.I8)), nil
	case *pb.Expression_Literal_I16:
		return scalar.NewInt16Scalar(int16(v.I16)), nil
	case *pb.Expression_Literal_I32:
		return scalar.NewInt32Scalar(v.I32), nil
	case *pb.Expression_Literal_I64:
		return scalar.NewInt64Scalar(v.I64), nil
	case *pb.Expression_Literal_Fp32:
		return scalar.NewFloat32Scalar(v.Fp32), nil
	case *pb.Expression_Literal_Fp64:
		return scalar.NewFloat64Scalar(v.Fp64), nil
	case *pb.Expression_Literal_String_:
		return scalar.NewStringScalar(v.String_), nil
	case *pb.Expression_Literal_VarChar_:
		return scalar.NewStringScalar(v.VarChar.GetValue()), nil
	case *pb.Expression_Literal_FixedChar:
		return scalar.NewStringScalar(v.FixedChar), nil
	case *pb.Expression_Literal_Binary:
		return scalar.NewBinaryScalar(memory.NewBufferBytes(append([]byte(nil), v.Binary...)), arrow.BinaryTypes.Binary), nil
	case *pb.Expression_Literal_Date:
		return scalar.NewDate32Scalar(arrow.Date32(v.Date)), nil
	case *pb.Expression_Literal_PrecisionTimestamp_:
		return timestampScalar(v.PrecisionTimestamp, "", path)
	case *pb.Expression_Literal_PrecisionTimestampTz:
		return timestampScalar(v.PrecisionTimestampTz, "UTC", path)
	case *pb.Expression_Literal_Timestamp: //nolint:staticcheck // deprecated, still sent by older producers
		return scalar.NewTimestampScalar(arrow.Timestamp(v.Timestamp), &arrow.TimestampType{Unit: arrow.Microsecond}), nil
	case *pb.Expression_Literal_TimestampTz: //nolint:staticcheck // deprecated, still sent by older producers
		return scalar.NewTimestampScalar(arrow.Timestamp(v.TimestampTz), &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}), nil
	case *pb.Expression_Literal_Decimal_:
		return decimalScalar(v.Decimal, path)
	case *pb.Expression_Literal_IntervalCompound_:
		return intervalScalar(v.IntervalCompound, path)
	case *pb.Expression_Literal_Struct_:
		return structScalar(v.Struct, path) // struct.go
	case *pb.Expression_Literal_List_, *pb.Expression_Literal_EmptyList:
		return listScalar(l, path)
	case nil:
		return nil, invalid(path, "literal without a value")
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", l.GetLiteralType()), "*substraitpb.Expression_Literal_")
	return nil, dberr.NotSupported(fmt.Sprintf("Substrait %s literals (at %s)", strings.TrimSuffix(name, "_"), path))
}

func timestampScalar(v *pb.Expression_Literal_PrecisionTimestamp, tz, path string) (scalar.Scalar, error) {
	t, err := timestampType(v.GetPrecision(), tz)
	if err != nil {
		return nil, wrapType(err, path)
	}
	return scalar.NewTimestampScalar(arrow.Timestamp(v.GetValue()), t), nil
}

func decimalScalar(d *pb.Expression_Literal_Decimal, path string) (scalar.Scalar, error) {
	if len(d.GetValue()) != 16 {
		return nil, invalid(path, "decimal literal has %d bytes, want 16", len(d.GetValue()))
	}
	if d.GetPrecision() < 1 || d.GetPrecision() > 38 || d.GetScale() < 0 || d.GetScale() > d.GetPrecision() {
		return nil, invalid(path, "invalid decimal(%d, %d)", d.GetPrecision(), d.GetScale())
	}
	lo := binary.LittleEndian.Uint64(d.GetValue())
	hi := int64(binary.LittleEndian.Uint64(d.GetValue()[8:]))
	t := &arrow.Decimal128Type{Precision: d.GetPrecision(), Scale: d.GetScale()}
	return scalar.NewDecimal128Scalar(decimal128.New(hi, lo), t), nil
}

// intervalScalar decodes a compound interval into a month_day_nano interval.
func intervalScalar(v *pb.Expression_Literal_IntervalCompound, path string) (scalar.Scalar, error) {
	ym, ds := v.GetIntervalYearToMonth(), v.GetIntervalDayToSecond()
	var sub int64
	switch p := ds.GetPrecisionMode().(type) {
	case *pb.Expression_Literal_IntervalDayToSecond_Precision:
		if p.Precision < 0 || p.Precision > 9 {
			return nil, invalid(path, "interval precision %d out of range", p.Precision)
		}
		sub = ds.GetSubseconds()
		for range 9 - p.Precision {
			sub *= 10
		}
	case *pb.Expression_Literal_IntervalDayToSecond_Microseconds: //nolint:staticcheck // deprecated
		sub = int64(p.Microseconds) * 1000
	}
	iv := arrow.MonthDayNanoInterval{
		Months:      ym.GetYears()*12 + ym.GetMonths(),
		Days:        ds.GetDays(),
		Nanoseconds: int64(ds.GetSeconds())*1e9 + sub,
	}
	return scalar.NewMonthDayNanoIntervalScalar(iv), nil
}
