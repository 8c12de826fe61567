package substrait

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"

	"github.com/flightd/flightd/internal/dberr"
)

func nullability(nullable bool) pb.Type_Nullability {
	if nullable {
		return pb.Type_NULLABILITY_NULLABLE
	}
	return pb.Type_NULLABILITY_REQUIRED
}

var timestampPrecision = map[arrow.TimeUnit]int32{
	arrow.Second: 0, arrow.Millisecond: 3, arrow.Microsecond: 6, arrow.Nanosecond: 9,
}

// toType maps an Arrow type to a Substrait type. Unsigned integers become the signed type
// twice as wide (uint64 becomes i64): Substrait has no unsigned integers. The consumer takes
// column types from the catalog, so only literals and casts are affected.
func toType(t arrow.DataType, nullable bool) (*pb.Type, error) {
	n := nullability(nullable)
	switch t.ID() {
	case arrow.BOOL:
		return &pb.Type{Kind: &pb.Type_Bool{Bool: &pb.Type_Boolean{Nullability: n}}}, nil
	case arrow.INT8:
		return &pb.Type{Kind: &pb.Type_I8_{I8: &pb.Type_I8{Nullability: n}}}, nil
	case arrow.INT16, arrow.UINT8:
		return &pb.Type{Kind: &pb.Type_I16_{I16: &pb.Type_I16{Nullability: n}}}, nil
	case arrow.NULL:
		// Substrait has no NULL type: an i32 marked nullVariation (struct.go) comes back as
		// NULL, so a struct field of type NULL keeps its type.
		return &pb.Type{Kind: &pb.Type_I32_{I32: &pb.Type_I32{Nullability: n, TypeVariationReference: nullVariation}}}, nil
	case arrow.INT32, arrow.UINT16:
		return &pb.Type{Kind: &pb.Type_I32_{I32: &pb.Type_I32{Nullability: n}}}, nil
	case arrow.INT64, arrow.UINT32, arrow.UINT64:
		return &pb.Type{Kind: &pb.Type_I64_{I64: &pb.Type_I64{Nullability: n}}}, nil
	case arrow.FLOAT32:
		return &pb.Type{Kind: &pb.Type_Fp32{Fp32: &pb.Type_FP32{Nullability: n}}}, nil
	case arrow.FLOAT64:
		return &pb.Type{Kind: &pb.Type_Fp64{Fp64: &pb.Type_FP64{Nullability: n}}}, nil
	case arrow.STRING, arrow.LARGE_STRING:
		return &pb.Type{Kind: &pb.Type_String_{String_: &pb.Type_String{Nullability: n}}}, nil
	case arrow.BINARY, arrow.LARGE_BINARY:
		return &pb.Type{Kind: &pb.Type_Binary_{Binary: &pb.Type_Binary{Nullability: n}}}, nil
	case arrow.FIXED_SIZE_BINARY:
		w := int32(t.(*arrow.FixedSizeBinaryType).ByteWidth)
		return &pb.Type{Kind: &pb.Type_FixedBinary_{FixedBinary: &pb.Type_FixedBinary{Length: w, Nullability: n}}}, nil
	case arrow.DATE32:
		return &pb.Type{Kind: &pb.Type_Date_{Date: &pb.Type_Date{Nullability: n}}}, nil
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return &pb.Type{Kind: &pb.Type_IntervalCompound_{IntervalCompound: &pb.Type_IntervalCompound{Precision: 9, Nullability: n}}}, nil
	case arrow.TIMESTAMP:
		ts := t.(*arrow.TimestampType)
		p := timestampPrecision[ts.Unit]
		if ts.TimeZone != "" {
			return &pb.Type{Kind: &pb.Type_PrecisionTimestampTz{PrecisionTimestampTz: &pb.Type_PrecisionTimestampTZ{Precision: p, Nullability: n}}}, nil
		}
		return &pb.Type{Kind: &pb.Type_PrecisionTimestamp_{PrecisionTimestamp: &pb.Type_PrecisionTimestamp{Precision: p, Nullability: n}}}, nil
	case arrow.DECIMAL128:
		d := t.(*arrow.Decimal128Type)
		return &pb.Type{Kind: &pb.Type_Decimal_{Decimal: &pb.Type_Decimal{Precision: d.Precision, Scale: d.Scale, Nullability: n}}}, nil
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		elem := t.(arrow.ListLikeType).ElemField()
		et, err := toType(elem.Type, elem.Nullable)
		if err != nil {
			return nil, err
		}
		lt := &pb.Type_List{Type: et, Nullability: n}
		if fsl, ok := t.(*arrow.FixedSizeListType); ok {
			lt.TypeVariationReference = fixedSizeVariation | uint32(fsl.Len())
		}
		return &pb.Type{Kind: &pb.Type_List_{List: lt}}, nil
	case arrow.STRUCT:
		st, err := structType(t.(*arrow.StructType).Fields(), n)
		if err != nil {
			return nil, err
		}
		return &pb.Type{Kind: &pb.Type_Struct_{Struct: st}}, nil
	}
	return nil, dberr.NotSupported(fmt.Sprintf("type %s in Substrait plans", t))
}

func structType(fields []arrow.Field, n pb.Type_Nullability) (*pb.Type_Struct, error) {
	st := &pb.Type_Struct{Nullability: n}
	for _, f := range fields {
		ft, err := toType(f.Type, f.Nullable)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		st.Types = append(st.Types, ft)
	}
	return st, nil
}

// namedStruct is the Substrait form of a table schema: names depth-first, then the struct
// type. A column whose Arrow type has no Substrait equivalent (dictionary, float16, map,
// durations, ...) is declared as binary: the consumer takes column types from the catalog,
// and a plan that reads such a column in an expression fails when that expression is
// produced. Its name is kept so that the base schema still names every column.
func namedStruct(s *arrow.Schema) (*pb.NamedStruct, error) {
	st := &pb.Type_Struct{Nullability: pb.Type_NULLABILITY_REQUIRED}
	var names []string
	for _, f := range s.Fields() {
		ft, err := toType(f.Type, f.Nullable)
		names = append(names, f.Name)
		if err != nil {
			ft = &pb.Type{Kind: &pb.Type_Binary_{Binary: &pb.Type_Binary{Nullability: nullability(f.Nullable)}}}
		} else {
			names = append(names, nestedNames(f.Type)...)
		}
		st.Types = append(st.Types, ft)
	}
	return &pb.NamedStruct{Names: names, Struct: st}, nil
}

// dfsNames lists field names depth-first, as NamedStruct and RelRoot want them.
func dfsNames(fields []arrow.Field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Name)
		out = append(out, nestedNames(f.Type)...)
	}
	return out
}

// nestedNames are the names a Substrait type nests: struct fields, also inside lists.
// It mirrors toType (maps are not lists here: they have no Substrait mapping).
func nestedNames(t arrow.DataType) []string {
	switch t.ID() {
	case arrow.STRUCT:
		return dfsNames(t.(*arrow.StructType).Fields())
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		return nestedNames(t.(arrow.ListLikeType).Elem())
	}
	return nil
}

// fromType maps a Substrait type back to Arrow (timestamps with a zone come back as UTC).
func fromType(t *pb.Type) (arrow.DataType, error) {
	switch k := t.GetKind().(type) {
	case *pb.Type_Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case *pb.Type_I8_:
		return arrow.PrimitiveTypes.Int8, nil
	case *pb.Type_I16_:
		return arrow.PrimitiveTypes.Int16, nil
	case *pb.Type_I32_:
		if k.I32.GetTypeVariationReference() == nullVariation {
			return arrow.Null, nil
		}
		return arrow.PrimitiveTypes.Int32, nil
	case *pb.Type_I64_:
		return arrow.PrimitiveTypes.Int64, nil
	case *pb.Type_Fp32:
		return arrow.PrimitiveTypes.Float32, nil
	case *pb.Type_Fp64:
		return arrow.PrimitiveTypes.Float64, nil
	case *pb.Type_String_, *pb.Type_Varchar, *pb.Type_FixedChar_:
		return arrow.BinaryTypes.String, nil
	case *pb.Type_Binary_:
		return arrow.BinaryTypes.Binary, nil
	case *pb.Type_FixedBinary_:
		return &arrow.FixedSizeBinaryType{ByteWidth: int(k.FixedBinary.GetLength())}, nil
	case *pb.Type_IntervalCompound_:
		return arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	case *pb.Type_Date_:
		return arrow.FixedWidthTypes.Date32, nil
	case *pb.Type_Timestamp_: //nolint:staticcheck // deprecated, still sent by older producers
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case *pb.Type_TimestampTz: //nolint:staticcheck // deprecated, still sent by older producers
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case *pb.Type_PrecisionTimestamp_:
		return timestampType(k.PrecisionTimestamp.GetPrecision(), "")
	case *pb.Type_PrecisionTimestampTz:
		return timestampType(k.PrecisionTimestampTz.GetPrecision(), "UTC")
	case *pb.Type_Decimal_:
		d := k.Decimal
		if d.GetPrecision() < 1 || d.GetPrecision() > 38 || d.GetScale() < 0 || d.GetScale() > d.GetPrecision() {
			return nil, fmt.Errorf("invalid decimal(%d, %d)", d.GetPrecision(), d.GetScale())
		}
		return &arrow.Decimal128Type{Precision: d.GetPrecision(), Scale: d.GetScale()}, nil
	case *pb.Type_Struct_:
		return structFromType(k.Struct) // struct.go
	case *pb.Type_List_:
		et, err := fromType(k.List.GetType())
		if err != nil {
			return nil, err
		}
		if size, ok := fixedSizeOf(k.List.GetTypeVariationReference()); ok {
			return arrow.FixedSizeListOf(size, et), nil
		}
		return arrow.ListOf(et), nil
	case nil:
		return nil, errors.New("missing type")
	}
	return nil, dberr.NotSupported(fmt.Sprintf("Substrait type %T", t.GetKind()))
}

func timestampType(precision int32, tz string) (arrow.DataType, error) {
	for u, p := range timestampPrecision {
		if p == precision {
			return &arrow.TimestampType{Unit: u, TimeZone: tz}, nil
		}
	}
	return nil, dberr.NotSupported(fmt.Sprintf("timestamp precision %d", precision))
}

// sigCode is the Substrait signature code of an argument type ("i64", "fp64", "str", ...).
func sigCode(t arrow.DataType) string {
	switch t.ID() {
	case arrow.BOOL:
		return "bool"
	case arrow.INT8:
		return "i8"
	case arrow.INT16:
		return "i16"
	case arrow.INT32:
		return "i32"
	case arrow.INT64:
		return "i64"
	case arrow.FLOAT32:
		return "fp32"
	case arrow.FLOAT64:
		return "fp64"
	case arrow.STRING, arrow.LARGE_STRING:
		return "str"
	case arrow.BINARY, arrow.LARGE_BINARY:
		return "vbin"
	case arrow.DATE32:
		return "date"
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone != "" {
			return "ptstz"
		}
		return "pts"
	case arrow.DECIMAL128:
		return "dec"
	}
	return "any"
}
