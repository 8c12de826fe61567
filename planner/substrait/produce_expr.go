package substrait

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

func argTypes(args []plan.Expr) []arrow.DataType {
	out := make([]arrow.DataType, len(args))
	for i, a := range args {
		out[i] = a.Type()
	}
	return out
}

// fieldRef is a direct reference to field i of the input.
func fieldRef(i int) *pb.Expression {
	return &pb.Expression{RexType: &pb.Expression_Selection{Selection: &pb.Expression_FieldReference{
		ReferenceType: &pb.Expression_FieldReference_DirectReference{DirectReference: &pb.Expression_ReferenceSegment{
			ReferenceType: &pb.Expression_ReferenceSegment_StructField_{StructField: &pb.Expression_ReferenceSegment_StructField{Field: int32(i)}},
		}},
		RootType: &pb.Expression_FieldReference_RootReference_{RootReference: &pb.Expression_FieldReference_RootReference{}},
	}}}
}

func (p *producer) expr(e plan.Expr) (*pb.Expression, error) {
	if makesStruct(e) { // struct.go
		inner, err := p.exprInner(e)
		if err != nil {
			return nil, err
		}
		return p.named(e, inner)
	}
	return p.exprInner(e)
}

func (p *producer) exprInner(e plan.Expr) (*pb.Expression, error) {
	switch e := e.(type) {
	case *plan.ColumnRef:
		return fieldRef(e.Index), nil
	case *plan.Literal:
		lit, err := literal(e.Value)
		if err != nil {
			return nil, err
		}
		return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: lit}}, nil
	case *plan.Cast:
		return p.cast(e)
	case *plan.Call:
		if e.Func == "case" {
			return p.ifThen(e)
		}
		if e.Func == "struct_extract" {
			return p.structField(e) // struct.go
		}
		return p.call(e)
	}
	return nil, dberr.NotSupported(fmt.Sprintf("expression %T in Substrait", e))
}

func (p *producer) cast(c *plan.Cast) (*pb.Expression, error) {
	in, err := p.expr(c.Input)
	if err != nil {
		return nil, err
	}
	t, err := toType(c.DataType, c.Nullable())
	if err != nil {
		return nil, err
	}
	fb := pb.Expression_Cast_FAILURE_BEHAVIOR_THROW_EXCEPTION
	if c.Try {
		fb = pb.Expression_Cast_FAILURE_BEHAVIOR_RETURN_NULL
	}
	return &pb.Expression{RexType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{Type: t, Input: in, FailureBehavior: fb}}}, nil
}

func (p *producer) call(c *plan.Call) (*pb.Expression, error) {
	args := make([]*pb.FunctionArgument, len(c.Args))
	for i, a := range c.Args {
		x, err := p.expr(a)
		if err != nil {
			return nil, err
		}
		args[i] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: x}}
	}
	out, err := toType(c.DataType, c.Null)
	if err != nil {
		return nil, err
	}
	urn, sig := scalarExtension(c.Func, argTypes(c.Args))
	return &pb.Expression{RexType: &pb.Expression_ScalarFunction_{ScalarFunction: &pb.Expression_ScalarFunction{
		FunctionReference: p.function(urn, sig), Arguments: args, OutputType: out,
	}}}, nil
}

// ifThen writes case(c1, v1, ..., else) as a Substrait IfThen.
func (p *producer) ifThen(c *plan.Call) (*pb.Expression, error) {
	all, err := p.exprs(c.Args)
	if err != nil {
		return nil, err
	}
	it := &pb.Expression_IfThen{Else: all[len(all)-1]}
	for i := 0; i+1 < len(all); i += 2 {
		it.Ifs = append(it.Ifs, &pb.Expression_IfThen_IfClause{If: all[i], Then: all[i+1]})
	}
	return &pb.Expression{RexType: &pb.Expression_IfThen_{IfThen: it}}, nil
}

// literal encodes a scalar. Unsigned integers are written as the next wider signed type.
func literal(s scalar.Scalar) (*pb.Expression_Literal, error) {
	if !s.IsValid() {
		t, err := toType(s.DataType(), true)
		if err != nil {
			return nil, err
		}
		return &pb.Expression_Literal{Nullable: true, LiteralType: &pb.Expression_Literal_Null{Null: t}}, nil
	}
	lit := &pb.Expression_Literal{}
	switch v := s.(type) {
	case *scalar.Boolean:
		lit.LiteralType = &pb.Expression_Literal_Boolean{Boolean: v.Value}
	case *scalar.Int8:
		lit.LiteralType = &pb.Expression_Literal_I8{I8: int32(v.Value)}
	case *scalar.Int16:
		lit.LiteralType = &pb.Expression_Literal_I16{I16: int32(v.Value)}
	case *scalar.Int32:
		lit.LiteralType = &pb.Expression_Literal_I32{I32: v.Value}
	case *scalar.Int64:
		lit.LiteralType = &pb.Expression_Literal_I64{I64: v.Value}
	case *scalar.Uint8:
		lit.LiteralType = &pb.Expression_Literal_I16{I16: int32(v.Value)}
	case *scalar.Uint16:
		lit.LiteralType = &pb.Expression_Literal_I32{I32: int32(v.Value)}
	case *scalar.Uint32:
		lit.LiteralType = &pb.Expression_Literal_I64{I64: int64(v.Value)}
	case *scalar.Uint64:
		lit.LiteralType = &pb.Expression_Literal_I64{I64: int64(v.Value)}
	case *scalar.Float32:
		lit.LiteralType = &pb.Expression_Literal_Fp32{Fp32: v.Value}
	case *scalar.Float64:
		lit.LiteralType = &pb.Expression_Literal_Fp64{Fp64: v.Value}
	case *scalar.String:
		lit.LiteralType = &pb.Expression_Literal_String_{String_: v.String()}
	case *scalar.LargeString:
		lit.LiteralType = &pb.Expression_Literal_String_{String_: v.String()}
	case *scalar.Binary:
		lit.LiteralType = &pb.Expression_Literal_Binary{Binary: append([]byte(nil), v.Data()...)}
	case *scalar.Date32:
		lit.LiteralType = &pb.Expression_Literal_Date{Date: int32(v.Value)}
	case *scalar.Timestamp:
		setTimestamp(lit, v)
	case *scalar.MonthDayNanoInterval:
		lit.LiteralType = intervalLiteral(v.Value)
	case *scalar.Decimal128:
		d := v.Type.(*arrow.Decimal128Type)
		b := make([]byte, 16)
		binary.LittleEndian.PutUint64(b, v.Value.LowBits())
		binary.LittleEndian.PutUint64(b[8:], uint64(v.Value.HighBits()))
		lit.LiteralType = &pb.Expression_Literal_Decimal_{Decimal: &pb.Expression_Literal_Decimal{Value: b, Precision: d.Precision, Scale: d.Scale}}
	case scalar.ListScalar:
		return listLiteral(v)
	case *scalar.Struct:
		return structLiteral(v) // struct.go
	default:
		return nil, dberr.NotSupported(fmt.Sprintf("literal of type %s in Substrait", s.DataType()))
	}
	return lit, nil
}

func setTimestamp(lit *pb.Expression_Literal, v *scalar.Timestamp) {
	ts := v.Type.(*arrow.TimestampType)
	pt := &pb.Expression_Literal_PrecisionTimestamp{Precision: timestampPrecision[ts.Unit], Value: int64(v.Value)}
	if ts.TimeZone != "" {
		lit.LiteralType = &pb.Expression_Literal_PrecisionTimestampTz{PrecisionTimestampTz: pt}
		return
	}
	lit.LiteralType = &pb.Expression_Literal_PrecisionTimestamp_{PrecisionTimestamp: pt}
}

// intervalLiteral encodes a month_day_nano interval as a compound interval (nanosecond
// precision).
func intervalLiteral(iv arrow.MonthDayNanoInterval) *pb.Expression_Literal_IntervalCompound_ {
	return &pb.Expression_Literal_IntervalCompound_{IntervalCompound: &pb.Expression_Literal_IntervalCompound{
		IntervalYearToMonth: &pb.Expression_Literal_IntervalYearToMonth{Months: iv.Months},
		IntervalDayToSecond: &pb.Expression_Literal_IntervalDayToSecond{
			Days: iv.Days, Seconds: int32(iv.Nanoseconds / 1e9), Subseconds: iv.Nanoseconds % 1e9,
			PrecisionMode: &pb.Expression_Literal_IntervalDayToSecond_Precision{Precision: 9},
		},
	}}
}
