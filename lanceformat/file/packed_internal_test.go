package file

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/schema"
)

// TestPackedColumns checks which struct fields own one packed column. The expectations
// are the column counts pylance 14 writes for a struct<a int32, b float64> with each
// metadata (a packed struct has 1 column; otherwise 3 in 2.0: header + children, 2 in
// 2.1+: the leaves). The 2.0 rows whose files pylance cannot read back are covered only
// here.
func TestPackedColumns(t *testing.T) {
	tests := []struct {
		md       map[string]string
		v        Version
		wantCols int
	}{
		{map[string]string{"packed": "true"}, V2_0, 1},
		{map[string]string{"packed": "true"}, V2_1, 1},
		{map[string]string{"packed": "false"}, V2_0, 3},
		{map[string]string{"packed": "false"}, V2_1, 2},
		{map[string]string{"lance-encoding:packed": "true"}, V2_0, 1},
		{map[string]string{"lance-encoding:packed": "true"}, V2_2, 1},
		{map[string]string{"lance-encoding:packed": "false"}, V2_0, 1},
		{map[string]string{"lance-encoding:packed": "false"}, V2_1, 2},
		{map[string]string{"lance-encoding:packed": "TRUE"}, V2_0, 1},
		{map[string]string{"lance-encoding:packed": "TRUE"}, V2_1, 1},
		{map[string]string{"packed": "false", "lance-encoding:packed": "true"}, V2_0, 3},
		{map[string]string{"packed": "false", "lance-encoding:packed": "true"}, V2_1, 1},
		{nil, V2_0, 3},
		{nil, V2_2, 2},
	}
	for _, tc := range tests {
		st := &schema.Field{Name: "st", ID: 0, Metadata: tc.md,
			Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
				arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Float64}),
			Children: []*schema.Field{
				{Name: "a", ID: 1, Type: arrow.PrimitiveTypes.Int32},
				{Name: "b", ID: 2, Type: arrow.PrimitiveTypes.Float64},
			}}
		cols := columnFields(st, tc.v)
		require.Len(t, cols, tc.wantCols, "%v in %s", tc.md, tc.v)
		require.Equal(t, tc.wantCols == 1, isPacked(st, tc.v), "%v in %s", tc.md, tc.v)
		if tc.wantCols == 1 {
			require.Same(t, st, cols[0])
		}
	}
}
