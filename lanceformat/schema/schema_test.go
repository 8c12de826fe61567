package schema_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

func fld(id, parent int32, name, logical string) *lancepb.Field {
	return &lancepb.Field{Id: id, ParentId: parent, Name: name, LogicalType: logical, Nullable: true}
}

func TestFromProto(t *testing.T) {
	// {a:int64, s:struct{x:int32,y:string}, l:list<float>, v:fsl<float,4>} in pre-order.
	fields := []*lancepb.Field{
		fld(0, -1, "a", "int64"),
		fld(1, -1, "s", "struct"),
		fld(2, 1, "x", "int32"),
		fld(3, 1, "y", "string"),
		fld(4, -1, "l", "list"),
		fld(5, 4, "item", "float"),
		fld(6, -1, "v", "fixed_size_list:float:4"),
	}
	fields[0].Metadata = map[string][]byte{"k": []byte("v")}
	fields[0].ExtensionName = "ext"
	s, err := schema.FromProto(fields)
	require.NoError(t, err)
	want := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true,
			Metadata: arrow.NewMetadata([]string{"ARROW:extension:name", "k"}, []string{"ext", "v"})},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true}), Nullable: true},
		{Name: "v", Type: arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32), Nullable: true},
	}, nil)
	got := s.ToArrow()
	require.Equal(t, want.NumFields(), got.NumFields())
	for i := range want.Fields() {
		require.True(t, arrow.TypeEqual(want.Field(i).Type, got.Field(i).Type), "field %d: %s vs %s", i, got.Field(i).Type, want.Field(i).Type)
		require.Equal(t, want.Field(i).Name, got.Field(i).Name)
	}
	md := got.Field(0).Metadata
	require.Equal(t, "ext", md.Values()[md.FindKey("ARROW:extension:name")])
	require.Equal(t, "v", md.Values()[md.FindKey("k")])

	require.Equal(t, "y", s.FieldByID(3).Name)
	require.Nil(t, s.FieldByID(99))
	require.Equal(t, []int32{2, 3}, ids(s.Fields[1].Leaves()))
	require.Equal(t, []int32{5}, ids(s.Fields[2].Leaves()))
	require.Equal(t, []int32{4, 5}, ids(s.Fields[2].PreOrder()))
	require.True(t, s.Fields[2].IsList())
	require.True(t, s.Fields[1].IsStruct())

	back, err := s.ToProto()
	require.NoError(t, err)
	require.Len(t, back, len(fields))
	for i, f := range back {
		require.Equal(t, fields[i].GetId(), f.GetId())
		require.Equal(t, fields[i].GetParentId(), f.GetParentId())
		require.Equal(t, fields[i].GetLogicalType(), f.GetLogicalType())
		require.Equal(t, fields[i].GetName(), f.GetName())
	}
	require.Equal(t, lancepb.Field_NONE, back[1].GetEncoding())
	require.Equal(t, lancepb.Field_VAR_BINARY, back[3].GetEncoding())
	require.Equal(t, lancepb.Field_PLAIN, back[0].GetEncoding())
}

func ids(fs []*schema.Field) []int32 {
	var out []int32
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestFromProtoErrors(t *testing.T) {
	tests := []struct {
		name   string
		fields []*lancepb.Field
	}{
		{"parent after child", []*lancepb.Field{fld(1, 0, "x", "int32"), fld(0, -1, "s", "struct")}},
		{"duplicate id", []*lancepb.Field{fld(0, -1, "a", "int32"), fld(0, -1, "b", "int32")}},
		{"negative id", []*lancepb.Field{fld(-3, -1, "a", "int32")}},
		{"list without item", []*lancepb.Field{fld(0, -1, "l", "list")}},
		{"list with two items", []*lancepb.Field{fld(0, -1, "l", "list"), fld(1, 0, "a", "int8"), fld(2, 0, "b", "int8")}},
		{"leaf with children", []*lancepb.Field{fld(0, -1, "a", "int32"), fld(1, 0, "b", "int8")}},
		{"bad type", []*lancepb.Field{fld(0, -1, "a", "nope")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.FromProto(tc.fields)
			require.Error(t, err)
		})
	}
}
