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
)

// fixedSizeVariation marks a Substrait list type or list literal that stands for an Arrow
// fixed_size_list (DuckDB's ARRAY, FLOAT[128]): Substrait has no fixed-size list, so
// flightd writes a List whose type_variation_reference is fixedSizeVariation plus the
// size. Only flightd's own consumer reads it back; other consumers see a plain list.
const fixedSizeVariation uint32 = 1 << 31

// fixedSizeOf returns the size a type variation reference encodes, if any.
func fixedSizeOf(ref uint32) (int32, bool) {
	if ref&fixedSizeVariation == 0 {
		return 0, false
	}
	return int32(ref &^ fixedSizeVariation), true
}

// listLiteral encodes a valid list or fixed-size list scalar.
func listLiteral(s scalar.ListScalar) (*pb.Expression_Literal, error) {
	items := s.GetList()
	lit := &pb.Expression_Literal{}
	if fsl, ok := s.DataType().(*arrow.FixedSizeListType); ok {
		lit.TypeVariationReference = fixedSizeVariation | uint32(fsl.Len())
	}
	if items.Len() == 0 {
		t, err := toType(s.DataType(), false)
		if err != nil {
			return nil, err
		}
		lit.LiteralType = &pb.Expression_Literal_EmptyList{EmptyList: t.GetList()}
		return lit, nil
	}
	vals := make([]*pb.Expression_Literal, items.Len())
	for i := range vals {
		item, err := scalar.GetScalar(items, i)
		if err != nil {
			return nil, dberr.Wrap(dberr.Internal, err, "list literal item %d", i)
		}
		if vals[i], err = literal(item); err != nil {
			return nil, err
		}
	}
	lit.LiteralType = &pb.Expression_Literal_List_{List: &pb.Expression_Literal_List{Values: vals}}
	return lit, nil
}

// listScalar decodes a list literal (a fixed-size list when its variation says so).
func listScalar(l *pb.Expression_Literal, path string) (scalar.Scalar, error) {
	var items arrow.Array
	switch v := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_EmptyList:
		et, err := fromType(v.EmptyList.GetType())
		if err != nil {
			return nil, wrapType(err, path)
		}
		items = array.MakeArrayOfNull(memory.DefaultAllocator, et, 0)
	case *pb.Expression_Literal_List_:
		vals := v.List.GetValues()
		if len(vals) == 0 {
			return nil, invalid(path, "list literal without values")
		}
		ss := make([]scalar.Scalar, len(vals))
		for i, x := range vals {
			s, err := scalarOf(x, fmt.Sprintf("%s.list[%d]", path, i))
			if err != nil {
				return nil, err
			}
			ss[i] = s
		}
		arr, err := functions.ArrayOf(ss[0].DataType(), ss)
		if err != nil {
			return nil, invalid(path, "list literal items of different types: %v", err)
		}
		items = arr
	}
	defer items.Release()
	if n, ok := fixedSizeOf(l.GetTypeVariationReference()); ok {
		if int(n) != items.Len() {
			return nil, invalid(path, "fixed-size list literal of %d items has %d", n, items.Len())
		}
		return scalar.NewFixedSizeListScalarWithType(items, arrow.FixedSizeListOf(n, items.DataType())), nil
	}
	return scalar.NewListScalar(items), nil
}
