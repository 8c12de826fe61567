package kernel

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestArrayOfNull(t *testing.T) {
	null := arrow.Field{Name: "b", Type: arrow.Null, Nullable: true}
	i32 := arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}
	tests := []struct {
		name string
		dt   arrow.DataType
	}{
		{"int32", arrow.PrimitiveTypes.Int32},
		{"struct without NULL fields", arrow.StructOf(i32)},
		{"struct with a NULL field", arrow.StructOf(i32, null)},
		{"NULL field one struct down", arrow.StructOf(arrow.Field{Name: "s", Type: arrow.StructOf(null), Nullable: true}, i32)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			arr := ArrayOfNull(mem, tc.dt, 3)
			defer arr.Release()
			require.True(t, arrow.TypeEqual(tc.dt, arr.DataType()))
			require.Equal(t, 3, arr.Len())
			require.Equal(t, 3, arr.NullN())
			if s, ok := arr.(*array.Struct); ok {
				for i := range s.NumField() {
					require.Equal(t, 3, s.Field(i).Len())
					require.Equal(t, 3, s.Field(i).NullN())
				}
				require.Equal(t, "(null)", s.ValueStr(1))
			}
		})
	}
}
