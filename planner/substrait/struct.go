package substrait

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// Struct values in Substrait. Substrait struct types and literals have no field names, so
// an expression that makes a struct type of its own (a literal, a cast, struct_pack)
// travels wrapped in flightd's named(x, 'name', ...): the struct field names of x's type,
// depth-first as a NamedStruct lists them. Expressions whose struct types follow from
// their inputs (column references, struct_extract, CASE) need no wrapper.

// nullVariation marks the i32 type that stands for Arrow's NULL type (flightd's own
// consumer reads it back as NULL; others see an i32).
const nullVariation uint32 = 1 << 30

// hasStruct reports whether t has a struct inside (as itself, or as a list element).
func hasStruct(t arrow.DataType) bool {
	return len(nestedNames(t)) > 0
}

// makesStruct reports whether e fixes struct field names of its own.
func makesStruct(e plan.Expr) bool {
	switch e := e.(type) {
	case *plan.Literal, *plan.Cast:
		return hasStruct(e.Type())
	case *plan.Call:
		return e.Func == "struct_pack"
	}
	return false
}

// named writes e (built by inner) inside named(e, names...).
func (p *producer) named(e plan.Expr, inner *pb.Expression) (*pb.Expression, error) {
	names := nestedNames(e.Type())
	args := []*pb.FunctionArgument{{ArgType: &pb.FunctionArgument_Value{Value: inner}}}
	for _, n := range names {
		lit := &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: n}}
		args = append(args, &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: &pb.Expression{RexType: &pb.Expression_Literal_{Literal: lit}}}})
	}
	out, err := toType(e.Type(), e.Nullable())
	if err != nil {
		return nil, err
	}
	return &pb.Expression{RexType: &pb.Expression_ScalarFunction_{ScalarFunction: &pb.Expression_ScalarFunction{
		FunctionReference: p.function(URN, anySignature("named", len(args))), Arguments: args, OutputType: out,
	}}}, nil
}

// structLiteral encodes a valid struct scalar.
func structLiteral(s *scalar.Struct) (*pb.Expression_Literal, error) {
	fields := make([]*pb.Expression_Literal, len(s.Value))
	for i, v := range s.Value {
		l, err := literal(v)
		if err != nil {
			return nil, err
		}
		fields[i] = l
	}
	return &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Struct_{Struct: &pb.Expression_Literal_Struct{Fields: fields}}}, nil
}

// structScalar decodes a struct literal; its fields are named f0, f1, ... until a named
// call renames them.
func structScalar(v *pb.Expression_Literal_Struct, path string) (scalar.Scalar, error) {
	vals := make([]scalar.Scalar, len(v.GetFields()))
	names := make([]string, len(vals))
	for i, f := range v.GetFields() {
		s, err := scalarOf(f, fmt.Sprintf("%s.struct[%d]", path, i))
		if err != nil {
			return nil, err
		}
		vals[i], names[i] = s, fmt.Sprintf("f%d", i)
	}
	if len(vals) == 0 {
		return nil, invalid(path, "struct literal without fields")
	}
	s, err := scalar.NewStructScalarWithNames(vals, names)
	if err != nil {
		return nil, invalid(path, "struct literal: %v", err)
	}
	return s, nil
}

// structFromType maps a Substrait struct type to an Arrow struct named f0, f1, ...
func structFromType(st *pb.Type_Struct) (arrow.DataType, error) {
	fields := make([]arrow.Field, len(st.GetTypes()))
	for i, t := range st.GetTypes() {
		ft, err := fromType(t)
		if err != nil {
			return nil, err
		}
		fields[i] = arrow.Field{Name: fmt.Sprintf("f%d", i), Type: ft, Nullable: isNullable(t)}
	}
	return arrow.StructOf(fields...), nil
}

// consumeNamed reads named(x, 'name', ...): x with its struct field names replaced.
func consumeNamed(args []plan.Expr, path string) (plan.Expr, error) {
	if len(args) < 2 {
		return nil, invalid(path, "named needs an expression and at least one name")
	}
	names := make([]string, len(args)-1)
	for i, a := range args[1:] {
		lit, ok := a.(*plan.Literal)
		if !ok || !lit.Value.IsValid() || lit.Type().ID() != arrow.STRING {
			return nil, invalid(path, "named: argument %d is not a string literal", i+1)
		}
		names[i] = lit.Value.String()
	}
	t, rest, err := renameType(args[0].Type(), names)
	if err != nil || len(rest) != 0 {
		return nil, invalid(path, "named: %d names do not fit type %s", len(names), args[0].Type())
	}
	switch e := args[0].(type) {
	case *plan.Literal:
		s, err := retypeScalar(e.Value, t)
		if err != nil {
			return nil, invalid(path, "named: %v", err)
		}
		return &plan.Literal{Value: s}, nil
	case *plan.Cast:
		c := *e
		c.DataType = t
		return &c, nil
	case *plan.Call:
		c := *e
		c.DataType = t
		return &c, nil
	}
	return nil, dberr.NotSupported(fmt.Sprintf("named over %T (at %s)", args[0], path))
}

// renameType gives the structs of t the names, depth-first; it returns the names left.
func renameType(t arrow.DataType, names []string) (arrow.DataType, []string, error) {
	switch t := t.(type) {
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			if len(names) == 0 {
				return nil, nil, fmt.Errorf("too few names")
			}
			f.Name = names[0]
			ft, rest, err := renameType(f.Type, names[1:])
			if err != nil {
				return nil, nil, err
			}
			f.Type, names = ft, rest
			fields[i] = f
		}
		return arrow.StructOf(fields...), names, nil
	case *arrow.ListType:
		et, rest, err := renameType(t.Elem(), names)
		if err != nil {
			return nil, nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: t.ElemField().Name, Type: et, Nullable: t.ElemField().Nullable}), rest, nil
	case *arrow.FixedSizeListType:
		et, rest, err := renameType(t.Elem(), names)
		if err != nil {
			return nil, nil, err
		}
		return arrow.FixedSizeListOfField(t.Len(), arrow.Field{Name: t.ElemField().Name, Type: et, Nullable: t.ElemField().Nullable}), rest, nil
	}
	return t, names, nil
}

// retypeScalar gives s the type t, which differs from s's only in names.
func retypeScalar(s scalar.Scalar, t arrow.DataType) (scalar.Scalar, error) {
	if !s.IsValid() {
		return scalar.MakeNullScalar(t), nil
	}
	arr, err := scalar.MakeArrayFromScalar(s, 1, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	d := retypeData(arr.Data(), t)
	defer d.Release()
	out := array.MakeFromData(d)
	defer out.Release()
	return scalar.GetScalar(out, 0)
}

// retypeData shares d's buffers under type t (same layout, other names).
func retypeData(d arrow.ArrayData, t arrow.DataType) arrow.ArrayData {
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		var ct arrow.DataType
		switch t := t.(type) {
		case *arrow.StructType:
			ct = t.Field(i).Type
		case arrow.ListLikeType:
			ct = t.Elem()
		default:
			ct = c.DataType()
		}
		children[i] = retypeData(c, ct)
	}
	out := array.NewData(t, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out
}

// structField writes struct_extract chains as a Substrait field reference: a column's
// nested field (s.a.b) is a root reference with child segments, a field of any other
// expression an expression-rooted reference.
func (p *producer) structField(c *plan.Call) (*pb.Expression, error) {
	var path []int32
	var e plan.Expr = c
	for {
		call, ok := e.(*plan.Call)
		if !ok || call.Func != "struct_extract" || len(call.Args) != 2 {
			break
		}
		st, sok := call.Args[0].Type().(*arrow.StructType)
		key, kok := call.Args[1].(*plan.Literal)
		if !sok || !kok {
			return nil, dberr.New(dberr.Internal, "struct_extract over %s", call.Args[0].Type())
		}
		i, found := st.FieldIdx(key.Value.String())
		if !found {
			return nil, dberr.New(dberr.Internal, "struct_extract: no field %s in %s", key.Value, st)
		}
		path = append([]int32{int32(i)}, path...)
		e = call.Args[0]
	}
	ref := &pb.Expression_FieldReference{}
	if col, ok := e.(*plan.ColumnRef); ok {
		path = append([]int32{int32(col.Index)}, path...)
		ref.RootType = &pb.Expression_FieldReference_RootReference_{RootReference: &pb.Expression_FieldReference_RootReference{}}
	} else {
		root, err := p.expr(e)
		if err != nil {
			return nil, err
		}
		ref.RootType = &pb.Expression_FieldReference_Expression{Expression: root}
	}
	var seg *pb.Expression_ReferenceSegment
	for k := len(path) - 1; k >= 0; k-- {
		seg = &pb.Expression_ReferenceSegment{ReferenceType: &pb.Expression_ReferenceSegment_StructField_{
			StructField: &pb.Expression_ReferenceSegment_StructField{Field: path[k], Child: seg},
		}}
	}
	ref.ReferenceType = &pb.Expression_FieldReference_DirectReference{DirectReference: seg}
	return &pb.Expression{RexType: &pb.Expression_Selection{Selection: ref}}, nil
}

// selection reads a field reference: a top-level column (fieldOf), a column's nested
// field, or a field of an expression; nested steps become struct_extract calls.
func (c *consumer) selection(f *pb.Expression_FieldReference, in *arrow.Schema, path string) (plan.Expr, error) {
	sf := f.GetDirectReference().GetStructField()
	root := f.GetExpression()
	if sf == nil || (sf.GetChild() == nil && root == nil) {
		return fieldOf(f, in, path)
	}
	var base plan.Expr
	if root != nil {
		x, err := c.expr(root, in, path+".expression")
		if err != nil {
			return nil, err
		}
		base = x
	} else {
		top := &pb.Expression_FieldReference{
			ReferenceType: &pb.Expression_FieldReference_DirectReference{DirectReference: &pb.Expression_ReferenceSegment{
				ReferenceType: &pb.Expression_ReferenceSegment_StructField_{StructField: &pb.Expression_ReferenceSegment_StructField{Field: sf.GetField()}},
			}},
			RootType: f.GetRootType(),
		}
		x, err := fieldOf(top, in, path)
		if err != nil {
			return nil, err
		}
		base, sf = x, sf.GetChild().GetStructField()
	}
	return nestedField(base, sf, path)
}

// nestedField applies struct field segments to base.
func nestedField(base plan.Expr, sf *pb.Expression_ReferenceSegment_StructField, path string) (plan.Expr, error) {
	for sf != nil {
		st, ok := base.Type().(*arrow.StructType)
		i := int(sf.GetField())
		if !ok || i < 0 || i >= st.NumFields() {
			return nil, invalid(path, "struct field %d of %s", i, base.Type())
		}
		key := &plan.Literal{Value: scalar.NewStringScalar(st.Field(i).Name)}
		x, err := functions.StructExtract(base, key)
		if err != nil {
			return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid Substrait plan at %s", path)
		}
		base = x
		if sf.GetChild() != nil && sf.GetChild().GetStructField() == nil {
			return nil, dberr.NotSupported("Substrait list and map reference segments (at " + path + ")")
		}
		sf = sf.GetChild().GetStructField()
	}
	return base, nil
}
