package schema_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// TestMapSchema checks maps go to Lance's "map" field with an entries struct child (as
// pylance 14 writes them) and come back as the same Arrow type.
func TestMapSchema(t *testing.T) {
	strInt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	required := arrow.MapOf(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String)
	required.SetItemNullable(false)
	tests := []struct {
		name    string
		typ     arrow.DataType
		logical []string // logical types in pre-order
	}{
		{"string to int32", strInt, []string{"map", "struct", "string", "int32"}},
		{"non-null values", required, []string{"map", "struct", "int64", "string"}},
		{"list of maps", arrow.ListOf(strInt), []string{"list", "map", "struct", "string", "int32"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			as := arrow.NewSchema([]arrow.Field{{Name: "m", Type: tc.typ, Nullable: true}}, nil)
			s, err := schema.FromArrow(as, 0)
			require.NoError(t, err)
			pb, err := s.ToProto()
			require.NoError(t, err)
			var logical []string
			for _, f := range pb {
				logical = append(logical, f.GetLogicalType())
			}
			require.Equal(t, tc.logical, logical)
			back, err := schema.FromProto(pb)
			require.NoError(t, err)
			require.True(t, back.ToArrow().Equal(as), "got %s, want %s", back.ToArrow(), as)
			leaves := back.Fields[0].Leaves()
			require.Len(t, leaves, 2, "a map's columns are its key and value")
		})
	}
}

func TestMapSchemaErrors(t *testing.T) {
	nullableKey := fld(2, 1, "key", "string")
	tests := []struct {
		name   string
		fields []*lancepb.Field
	}{
		{"no entries", []*lancepb.Field{fld(0, -1, "m", "map")}},
		{"entries not a struct", []*lancepb.Field{fld(0, -1, "m", "map"), fld(1, 0, "entries", "int32")}},
		{"one member", []*lancepb.Field{fld(0, -1, "m", "map"), fld(1, 0, "entries", "struct"), fld(2, 1, "key", "string")}},
		{"nullable key", []*lancepb.Field{fld(0, -1, "m", "map"), fld(1, 0, "entries", "struct"), nullableKey, fld(3, 1, "value", "int32")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.FromProto(tc.fields)
			require.ErrorIs(t, err, schema.ErrBadSchema)
		})
	}
}
