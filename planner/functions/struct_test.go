package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

func TestCommonStruct(t *testing.T) {
	i32, i64, str := arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	st := func(fields ...any) *arrow.StructType {
		var fs []arrow.Field
		for i := 0; i < len(fields); i += 2 {
			fs = append(fs, arrow.Field{Name: fields[i].(string), Type: fields[i+1].(arrow.DataType), Nullable: true})
		}
		return arrow.StructOf(fs...)
	}
	tests := []struct {
		name string
		a, b *arrow.StructType
		want arrow.DataType // nil: no common type
	}{
		{"same names", st("a", i32), st("a", i64), st("a", i64)},
		{"other names: union in a's order", st("a", i32), st("b", i32), st("a", i32, "b", i32)},
		{"other order keeps a's", st("a", i32, "b", str), st("b", str, "a", i64), st("a", i64, "b", str)},
		{"names fold case, a's spelling", st("A", i32), st("a", i32), st("A", i32)},
		{"more fields", st("a", i32), st("a", i32, "c", str), st("a", i32, "c", str)},
		{"unnamed takes the names", st("element1", i32), st("x", i64), st("x", i64)},
		{"unnamed on the right", st("x", i64), st("element1", i32), st("x", i64)},
		{"unnamed of another size", st("element1", i32, "element2", i32), st("x", i64), nil},
		{"fields without a common type", st("a", i32), st("a", arrow.FixedWidthTypes.Boolean), nil},
		{"nested structs unify by name", st("s", st("x", i32)), st("s", st("y", i32)), st("s", st("x", i32, "y", i32))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CommonType(tc.a, tc.b)
			if tc.want == nil {
				require.False(t, ok, "got %v", got)
				return
			}
			require.True(t, ok)
			require.True(t, arrow.TypeEqual(tc.want, got), "want %s, got %s", tc.want, got)
		})
	}
}

func TestCastStruct(t *testing.T) {
	i32 := arrow.PrimitiveTypes.Int32
	ab := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: i32, Nullable: true})
	col := &plan.ColumnRef{Index: 0, Name: "x", DataType: arrow.StructOf(arrow.Field{Name: "a", Type: i32, Nullable: true}), Null: true}
	tests := []struct {
		name string
		in   plan.Expr
		want string
	}{
		{"column: fields by name, missing ones NULL, NULL stays NULL", col,
			"case(is_null(x#0), NULL, struct_pack(CAST(struct_extract(x#0, 'a') AS int64), NULL))"},
		{"literal folds", &plan.Literal{Value: scalar.NewStructScalar([]scalar.Scalar{scalar.NewInt32Scalar(7)}, col.DataType)},
			"{a:int64 = 7, b:int32 = null}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Cast(tc.in, ab)
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(ab, got.Type()))
			require.Equal(t, tc.want, got.String())
		})
	}
}
