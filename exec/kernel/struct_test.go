package kernel

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// structOf reads a JSON array of {"a": int, "b": string} rows.
func structOf(t *testing.T, mem memory.Allocator, js string) arrow.Array {
	t.Helper()
	dt := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	arr, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	require.NoError(t, err)
	return arr
}

func TestCompareNested(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	l := structOf(t, mem, `[{"a":1,"b":"x"}, {"a":1,"b":null}, {"a":1,"b":null}, null, {"a":null,"b":"x"}, {"a":2,"b":"a"}]`)
	defer l.Release()
	r := structOf(t, mem, `[{"a":1,"b":"x"}, {"a":1,"b":null}, {"a":1,"b":"z"}, {"a":1,"b":"x"}, {"a":5,"b":"x"}, {"a":1,"b":"z"}]`)
	defer r.Release()
	tests := []struct {
		name string
		want string
	}{
		{"equal", `[true, true, false, null, false, false]`},
		{"not_equal", `[false, false, true, null, true, true]`},
		{"less", `[false, false, false, null, false, false]`},
		{"greater", `[false, false, true, null, true, true]`},
		{"less_equal", `[true, true, false, null, false, false]`},
		{"greater_equal", `[true, true, true, null, true, true]`},
		{"is_distinct_from", `[false, false, true, true, true, true]`},
		{"is_not_distinct_from", `[true, true, false, false, false, false]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CompareNested(mem, tc.name, l, r)
			require.NoError(t, err)
			defer got.Release()
			want, _, err := array.FromJSON(mem, arrow.FixedWidthTypes.Boolean, strings.NewReader(tc.want))
			require.NoError(t, err)
			defer want.Release()
			require.True(t, array.Equal(want, got), "got %s", got)
		})
	}
}

func TestStructPackExtract(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := structOf(t, mem, `[{"a":1,"b":"x"}, null, {"a":3,"b":null}, {"a":4,"b":"w"}]`)
	defer s.Release()
	sliced := array.NewSlice(s, 1, 4)
	defer sliced.Release()
	tests := []struct {
		in         arrow.Array
		field, out string
	}{
		{s, "a", `[1, null, 3, 4]`},
		{s, "b", `["x", null, null, "w"]`},
		{sliced, "a", `[null, 3, 4]`},
		{sliced, "b", `[null, null, "w"]`},
	}
	for _, tc := range tests {
		got, err := StructExtract(mem, tc.in, tc.field)
		require.NoError(t, err)
		require.Equal(t, tc.out, strings.ReplaceAll(jsonOf(t, got), ",", ", "))
		got.Release()
	}
	a, err := StructExtract(mem, s, "a")
	require.NoError(t, err)
	defer a.Release()
	b, err := StructExtract(mem, s, "b")
	require.NoError(t, err)
	defer b.Release()
	packed, err := StructPack(s.DataType().(*arrow.StructType), []arrow.Array{a, b}, 4)
	require.NoError(t, err)
	defer packed.Release()
	require.Equal(t, 0, packed.NullN())
	require.Equal(t, `{"a":3,"b":null}`, packed.ValueStr(2))
	require.Equal(t, `{"a":null,"b":null}`, packed.ValueStr(1))
	_, err = StructPack(s.DataType().(*arrow.StructType), []arrow.Array{a}, 4)
	require.Error(t, err)
}

func jsonOf(t *testing.T, a arrow.Array) string {
	t.Helper()
	b, err := a.MarshalJSON()
	require.NoError(t, err)
	return string(b)
}

func TestStructKeyEncoder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := structOf(t, mem, `[{"a":1,"b":"x"}, {"a":1,"b":"x"}, null, {"a":null,"b":null}, null, {"a":1,"b":null}, {"a":null,"b":null}]`)
	defer s.Release()
	enc, err := NewKeyEncoder(s)
	require.NoError(t, err)
	keys := make([]string, s.Len())
	for i := range keys {
		keys[i] = string(enc(nil, i))
	}
	require.Equal(t, keys[0], keys[1])
	require.Equal(t, keys[2], keys[4])
	require.Equal(t, keys[3], keys[6])
	require.NotEqual(t, keys[2], keys[3], "a NULL struct is not a struct of NULLs")
	require.NotEqual(t, keys[0], keys[5])
}

func TestListKeyEncoderAndExtract(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lists, _, err := array.FromJSON(mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), strings.NewReader(`[[1, 2], [1, 2], null, [], [null], [1], [2, 1]]`))
	require.NoError(t, err)
	defer lists.Release()
	enc, err := NewKeyEncoder(lists)
	require.NoError(t, err)
	key := func(i int) string { return string(enc(nil, i)) }
	require.Equal(t, key(0), key(1))
	for _, pair := range [][2]int{{2, 3}, {3, 4}, {0, 5}, {0, 6}} {
		require.NotEqual(t, key(pair[0]), key(pair[1]), "rows %v", pair)
	}
	tests := []struct {
		idx, want string
	}{
		{`[1, 2, 1, 1, 1, 1, 2]`, `[1,2,null,null,null,1,1]`},
		{`[-1, 3, 1, -1, null, -2, -3]`, `[2,null,null,null,null,null,null]`},
	}
	for _, tc := range tests {
		idx, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int64, strings.NewReader(tc.idx))
		require.NoError(t, err)
		got, err := ListExtract(t.Context(), mem, lists, idx)
		idx.Release()
		require.NoError(t, err)
		require.Equal(t, tc.want, jsonOf(t, got))
		got.Release()
	}
}

func TestNestedToString(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	in, _, err := array.FromJSON(mem, dt, strings.NewReader(`[{"a":"x y","l":["p",null,"it's","b,c",""],"f":1.5}, null, {"a":null,"l":[],"f":2}]`))
	require.NoError(t, err)
	defer in.Release()
	out, err := CastToString(mem, in, arrow.BinaryTypes.String)
	require.NoError(t, err)
	defer out.Release()
	s := out.(*array.String)
	require.Equal(t, `{'a': x y, 'l': [p, NULL, 'it\'s', 'b,c', ''], 'f': 1.5}`, s.Value(0))
	require.True(t, s.IsNull(1))
	require.Equal(t, `{'a': NULL, 'l': [], 'f': 2.0}`, s.Value(2))
}
