package encoding_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

const (
	item      = enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM
	nullItem  = enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM
	nullEmpty = enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST
)

// int32Values returns a builder holding the given values (all valid).
func int32Values(t *testing.T, vals ...int32) *encoding.Builder {
	b, err := encoding.NewBuilder(arrow.PrimitiveTypes.Int32)
	require.NoError(t, err)
	raw := arrow.Int32Traits.CastToBytes(vals)
	require.NoError(t, b.AppendFixed(raw, 0, len(vals), nil))
	return b
}

func TestAssemble(t *testing.T) {
	structList := arrow.StructOf(arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true})
	listList := arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32))
	tests := []struct {
		name     string
		typ      arrow.DataType
		layers   []enc21pb.RepDefLayer
		rep, def []uint16
		vals     []int32
		lo, hi   int
		want     string
	}{
		{
			// The spec's worked example: struct?<list?<int?>>, levels 0 valid, 1 null int,
			// 2 null list, 3 empty list, 4 null struct.
			name: "struct of list", typ: structList, layers: []enc21pb.RepDefLayer{nullItem, nullEmpty, nullItem},
			rep: []uint16{1, 0, 1, 1, 1, 1}, def: []uint16{0, 1, 2, 3, 4, 0}, vals: []int32{1, 99, 5},
			lo: 0, hi: 5, want: `[{"l":[1,null]},{"l":null},{"l":[]},null,{"l":[5]}]`,
		},
		{
			name: "struct of list, middle rows", typ: structList, layers: []enc21pb.RepDefLayer{nullItem, nullEmpty, nullItem},
			rep: []uint16{1, 0, 1, 1, 1, 1}, def: []uint16{0, 1, 2, 3, 4, 0}, vals: []int32{1, 99, 5},
			lo: 1, hi: 4, want: `[{"l":null},{"l":[]},null]`,
		},
		{
			name: "list of lists", typ: listList, layers: []enc21pb.RepDefLayer{item, nullEmpty, nullEmpty},
			rep: []uint16{2, 0, 1, 2, 2, 2, 1}, def: []uint16{0, 0, 0, 2, 3, 0, 1}, vals: []int32{1, 2, 3, 4},
			lo: 0, hi: 4, want: `[[[1,2],[3]],[[]],null,[[4],null]]`,
		},
		{
			name: "list of lists, last rows", typ: listList, layers: []enc21pb.RepDefLayer{item, nullEmpty, nullEmpty},
			rep: []uint16{2, 0, 1, 2, 2, 2, 1}, def: []uint16{0, 0, 0, 2, 3, 0, 1}, vals: []int32{1, 2, 3, 4},
			lo: 2, hi: 4, want: `[null,[[4],null]]`,
		},
		{
			name: "nullable leaf, no rep", typ: arrow.PrimitiveTypes.Int32, layers: []enc21pb.RepDefLayer{nullItem},
			def: []uint16{0, 1, 0}, vals: []int32{7, 0, 9}, lo: 0, hi: 3, want: `[7,null,9]`,
		},
		{
			name: "no levels", typ: arrow.PrimitiveTypes.Int32, layers: []enc21pb.RepDefLayer{item},
			vals: []int32{7, 8, 9}, lo: 1, hi: 3, want: `[8,9]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			lv, err := encoding.NewLevels(tc.layers)
			require.NoError(t, err)
			root, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			var path []encoding.PathNode
			b := root
			for k := len(tc.layers) - 1; k >= 0; k-- {
				path = append(path, encoding.PathNode{B: b, IsList: lv.IsList(k), Owner: true})
				if k > 0 {
					b = b.Child(0)
				}
			}
			p := &encoding.Page21{Rep: tc.rep, Def: tc.def, Vals: int32Values(t, tc.vals...), NumEntries: max(len(tc.def), len(tc.rep))}
			if p.NumEntries == 0 {
				p.NumEntries = len(tc.vals)
			}
			require.NoError(t, encoding.Assemble(lv, path, p, tc.lo, tc.hi))
			got, err := root.FinishArray(mem)
			require.NoError(t, err)
			defer got.Release()
			want, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.want))
			require.NoError(t, err)
			defer want.Release()
			require.True(t, array.Equal(want, got), "want %s\ngot  %s", want, got)
		})
	}
}

func TestAssembleErrors(t *testing.T) {
	listT := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	tests := []struct {
		name     string
		rep, def []uint16
		vals     int
	}{
		{"rep above max", []uint16{2}, []uint16{0}, 1},
		{"def above max", []uint16{1}, []uint16{9}, 1},
		{"first entry continues a row", []uint16{0}, []uint16{0}, 1},
		{"too few values", []uint16{1, 0, 0}, []uint16{0, 0, 0}, 2},
		{"continue a null list", []uint16{1, 0}, []uint16{1, 0}, 2},
		{"level count mismatch", []uint16{1, 0}, []uint16{0}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lv, err := encoding.NewLevels([]enc21pb.RepDefLayer{item, nullEmpty})
			require.NoError(t, err)
			root, err := encoding.NewBuilder(listT)
			require.NoError(t, err)
			path := []encoding.PathNode{{B: root, IsList: true, Owner: true}, {B: root.Child(0), Owner: true}}
			vals := make([]int32, tc.vals)
			p := &encoding.Page21{Rep: tc.rep, Def: tc.def, Vals: int32Values(t, vals...), NumEntries: len(tc.rep)}
			err = encoding.Assemble(lv, path, p, 0, 10)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
		})
	}
}

func TestNewLevelsRejectsUnknownLayer(t *testing.T) {
	_, err := encoding.NewLevels([]enc21pb.RepDefLayer{enc21pb.RepDefLayer(42)})
	require.ErrorIs(t, err, encoding.ErrCorrupt)
}
