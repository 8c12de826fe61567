package encoding_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

const (
	wAllValidItem = enc21pb.RepDefLayer_REPDEF_ALL_VALID_ITEM
	wNullableItem = enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM
	wEmptyList    = enc21pb.RepDefLayer_REPDEF_EMPTYABLE_LIST
	wNullEmpty    = enc21pb.RepDefLayer_REPDEF_NULL_AND_EMPTY_LIST
)

func fromJSON(t *testing.T, mem memory.Allocator, typ arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(mem, typ, strings.NewReader(js))
	require.NoError(t, err)
	return a
}

func TestShredLeaves(t *testing.T) {
	structListInt := arrow.StructOf(arrow.Field{Name: "l", Nullable: true, Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)})
	tests := []struct {
		name     string
		typ      arrow.DataType
		js       string
		layers   []enc21pb.RepDefLayer
		rep, def []uint16
		idx      []int
		valid    []bool
	}{
		{"flat no nulls", arrow.PrimitiveTypes.Int32, `[1,2,3]`,
			[]enc21pb.RepDefLayer{wAllValidItem}, nil, nil, []int{0, 1, 2}, []bool{true, true, true}},
		{"flat nulls", arrow.PrimitiveTypes.Int32, `[1,null,3]`,
			[]enc21pb.RepDefLayer{wNullableItem}, nil, []uint16{0, 1, 0}, []int{0, 1, 2}, []bool{true, false, true}},
		// The worked example of §5.6.1: 0 valid, 1 null int, 2 null list, 3 empty list, 4 null struct.
		{"struct<list<int>>", structListInt, `[{"l":[1,null]},{"l":null},{"l":[]},null,{"l":[5]}]`,
			[]enc21pb.RepDefLayer{wNullableItem, wNullEmpty, wNullableItem},
			[]uint16{1, 0, 1, 1, 1, 1}, []uint16{0, 1, 2, 3, 4, 0}, []int{0, 1, 2}, []bool{true, false, true}},
		{"list<list<int>>", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)), `[[[1,2],[3]],[[]],[]]`,
			[]enc21pb.RepDefLayer{wAllValidItem, wEmptyList, wEmptyList},
			[]uint16{2, 0, 1, 2, 2}, []uint16{0, 0, 0, 1, 2}, []int{0, 1, 2}, []bool{true, true, true}},
		{"null struct without lists is visible", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int8, Nullable: true}),
			`[{"x":1},null,{"x":null}]`, []enc21pb.RepDefLayer{wNullableItem, wNullableItem},
			nil, []uint16{0, 2, 1}, []int{0, 1, 2}, []bool{true, false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			a := fromJSON(t, mem, tc.typ, tc.js)
			defer a.Release()
			leaves, err := encoding.ShredLeaves(a)
			require.NoError(t, err)
			require.Len(t, leaves, 1)
			l := leaves[0]
			require.Equal(t, tc.layers, l.Layers)
			require.Equal(t, tc.rep, l.Rep)
			require.Equal(t, tc.def, l.Def)
			require.Equal(t, tc.idx, l.Idx)
			require.Equal(t, tc.valid, l.Valid)
			require.Equal(t, a.Len(), l.Rows)
		})
	}
}

// decodePage21 decodes a page made by EncodeLeaf21 with this package's decoders.
func decodePage21(t *testing.T, p *encoding.EncodedPage, typ arrow.DataType) (*encoding.Page21, *encoding.Levels) {
	t.Helper()
	switch l := p.Layout.GetLayout().(type) {
	case *enc21pb.PageLayout_MiniBlockLayout:
		mb := l.MiniBlockLayout
		chunks, err := encoding.ParseChunkMeta(p.Buffers[0], mb.GetNumItems(), uint64(len(p.Buffers[1])), mb.GetHasLargeChunk())
		require.NoError(t, err)
		var dict []byte
		if mb.GetDictionary() != nil {
			dict = p.Buffers[2]
		}
		m, err := encoding.NewMiniBlock(mb, typ, dict)
		require.NoError(t, err)
		pg, err := m.Decode(chunks, p.Buffers[1])
		require.NoError(t, err)
		return pg, m.Levels()
	case *enc21pb.PageLayout_FullZipLayout:
		pg, lv, err := encoding.DecodeFullZip(l.FullZipLayout, typ, p.Buffers[0])
		require.NoError(t, err)
		return pg, lv
	case *enc21pb.PageLayout_ConstantLayout:
		pg, lv, err := encoding.DecodeConstant(l.ConstantLayout, typ, p.Buffers, p.Rows)
		require.NoError(t, err)
		return pg, lv
	}
	t.Fatalf("unexpected layout %T", p.Layout.GetLayout())
	return nil, nil
}

func TestEncodeLeaf21Choices(t *testing.T) {
	repeat := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	wide := arrow.FixedSizeListOf(100, arrow.PrimitiveTypes.Float32)
	tests := []struct {
		name  string
		typ   arrow.DataType
		js    string
		check func(t *testing.T, p *encoding.EncodedPage)
	}{
		{"small ints bit-pack", arrow.PrimitiveTypes.Int64, repeat(5000, func(i int) string { return strconv.Itoa(i % 100) }),
			func(t *testing.T, p *encoding.EncodedPage) {
				mb := p.Layout.GetMiniBlockLayout()
				require.Equal(t, uint64(64), mb.GetValueCompression().GetInlineBitpacking().GetUncompressedBitsPerValue())
				word := 2
				if mb.GetHasLargeChunk() {
					word = 4
				}
				require.Len(t, p.Buffers[0], word*5, "5 chunks of 1024 values")
			}},
		{"long runs use RLE", arrow.PrimitiveTypes.Float32, repeat(5000, func(i int) string { return strconv.Itoa(i / 700) }),
			func(t *testing.T, p *encoding.EncodedPage) {
				mb := p.Layout.GetMiniBlockLayout()
				require.Equal(t, uint64(32), mb.GetValueCompression().GetRle().GetValues().GetFlat().GetBitsPerValue())
				require.Equal(t, uint64(2), mb.GetNumBuffers())
				word := 2
				if mb.GetHasLargeChunk() {
					word = 4
				}
				require.Len(t, p.Buffers[0], word*3, "RLE chunks hold at most 2048 values")
			}},
		{"random floats stay flat", arrow.PrimitiveTypes.Float64, repeat(3000, func(i int) string { return fmt.Sprintf("%d.25", i*7919%1000) }),
			func(t *testing.T, p *encoding.EncodedPage) {
				require.Equal(t, uint64(64), p.Layout.GetMiniBlockLayout().GetValueCompression().GetFlat().GetBitsPerValue())
			}},
		{"low cardinality strings use a dictionary", arrow.BinaryTypes.String,
			repeat(1000, func(i int) string { return []string{`"red"`, `"green"`, `null`, `"blue"`}[i%4] }),
			func(t *testing.T, p *encoding.EncodedPage) {
				mb := p.Layout.GetMiniBlockLayout()
				require.Equal(t, uint64(4), mb.GetNumDictionaryItems(), "red, green, blue and the empty null slot")
				d := mb.GetDictionary()
				if mb.GetHasLargeChunk() { // 2.2 dictionaries are LZ4-compressed, as pylance 14 writes them
					require.Equal(t, enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_LZ4, d.GetGeneral().GetCompression().GetScheme())
					d = d.GetGeneral().GetValues()
				}
				require.NotNil(t, d.GetVariable())
				require.Len(t, p.Buffers, 3)
			}},
		{"repetitive long strings use FSST", arrow.BinaryTypes.LargeString,
			repeat(3000, func(i int) string { return fmt.Sprintf(`"https://example.com/some/long/path/%d"`, i) }),
			func(t *testing.T, p *encoding.EncodedPage) {
				f := p.Layout.GetMiniBlockLayout().GetValueCompression().GetFsst()
				require.NotNil(t, f)
				require.Equal(t, uint64(64), f.GetValues().GetVariable().GetOffsets().GetFlat().GetBitsPerValue())
			}},
		{"wide vectors go full-zip", wide, repeat(20, func(i int) string {
			if i == 3 {
				return "null"
			}
			return repeat(100, func(j int) string { return strconv.Itoa(i + j) })
		}),
			func(t *testing.T, p *encoding.EncodedPage) {
				fz := p.Layout.GetFullZipLayout()
				require.Equal(t, uint32(3200), fz.GetBitsPerValue(), "no item validity: only a whole row is null")
				require.Equal(t, uint32(1), fz.GetBitsDef())
				require.Len(t, p.Buffers, 1, "fixed width without repetition has no repetition index")
			}},
		{"long strings in lists go full-zip", arrow.ListOf(arrow.BinaryTypes.String), repeat(10, func(i int) string {
			return fmt.Sprintf(`["%s", null, "x"]`, strings.Repeat("y", 300+i))
		}),
			func(t *testing.T, p *encoding.EncodedPage) {
				fz := p.Layout.GetFullZipLayout()
				require.Equal(t, uint32(32), fz.GetBitsPerOffset())
				require.Equal(t, uint32(30), fz.GetNumItems())
				require.Len(t, p.Buffers, 2)
				require.Len(t, p.Buffers[1], 2*11, "two-byte offsets: 10 rows + end")
			}},
		{"long repetitive strings go full-zip with FSST", arrow.BinaryTypes.String, repeat(200, func(i int) string {
			if i%10 == 0 {
				return "null"
			}
			return fmt.Sprintf(`"%s%d"`, strings.Repeat("lance file ", 30), i)
		}),
			func(t *testing.T, p *encoding.EncodedPage) {
				fz := p.Layout.GetFullZipLayout()
				require.NotNil(t, fz.GetValueCompression().GetFsst())
				require.Less(t, len(p.Buffers[0]), 200*300/2, "FSST shrinks the values")
			}},
		{"more levels than a chunk can hold fall back to full-zip", arrow.ListOf(arrow.PrimitiveTypes.Int32),
			repeat(70000, func(i int) string {
				if i == 69999 {
					return "[5,6]"
				}
				return "[]"
			}),
			func(t *testing.T, p *encoding.EncodedPage) {
				fz := p.Layout.GetFullZipLayout()
				require.NotNil(t, fz)
				require.Equal(t, uint32(70001), fz.GetNumItems())
				require.Equal(t, uint32(2), fz.GetNumVisibleItems())
			}},
		{"all null leaf is a simple constant page", arrow.PrimitiveTypes.Int32, `[null,null,null]`,
			func(t *testing.T, p *encoding.EncodedPage) {
				require.NotNil(t, p.Layout.GetConstantLayout())
				require.Empty(t, p.Buffers)
			}},
		{"all null items in lists keep their levels", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[null],[],null,[null,null]]`,
			func(t *testing.T, p *encoding.EncodedPage) {
				require.NotNil(t, p.Layout.GetConstantLayout())
				require.Len(t, p.Buffers, 2)
			}},
		{"many rows of lists span chunks", arrow.ListOf(arrow.PrimitiveTypes.Int16), repeat(6000, func(i int) string {
			return []string{`[1,2,3]`, `[]`, `null`, `[7]`}[i%4]
		}),
			func(t *testing.T, p *encoding.EncodedPage) {
				mb := p.Layout.GetMiniBlockLayout()
				require.Equal(t, uint32(1), mb.GetRepetitionIndexDepth())
				ri := p.Buffers[len(p.Buffers)-1]
				require.Greater(t, len(ri), 16, "more than one chunk")
				var rows uint64
				for i := 0; i < len(ri); i += 16 {
					rows += uint64(ri[i]) | uint64(ri[i+1])<<8
				}
				require.Equal(t, uint64(6000), rows, "rows_finished adds up to the page's rows")
			}},
	}
	for _, tc := range tests {
		for _, v22 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/v22=%v", tc.name, v22), func(t *testing.T) {
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				a := fromJSON(t, mem, tc.typ, tc.js)
				defer a.Release()
				leaves, err := encoding.ShredLeaves(a)
				require.NoError(t, err)
				require.Len(t, leaves, 1)
				p, err := encoding.EncodeLeaf21(leaves[0], v22)
				require.NoError(t, err)
				tc.check(t, p)
				require.Equal(t, uint64(a.Len()), p.Rows)
				checkDecodesBack(t, p, a, leaves[0], mem)
			})
		}
	}
}

// checkDecodesBack decodes page p and checks its levels and values equal leaf l's.
func checkDecodesBack(t *testing.T, p *encoding.EncodedPage, a arrow.Array, l *encoding.ShreddedLeaf, mem memory.Allocator) {
	pg, lv := decodePage21(t, p, l.Values.DataType())
	if l.Rep != nil {
		require.Equal(t, l.Rep, pg.Rep)
	}
	if l.Def != nil {
		require.Equal(t, l.Def, pg.Def)
	}
	require.Equal(t, len(l.Idx), lv.CountVisible(pg.Def, pg.NumEntries))
	got, err := pg.Vals.FinishArray(mem)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, len(l.Idx), got.Len())
	for k, i := range l.Idx {
		if l.Valid[k] {
			require.Equal(t, l.Values.ValueStr(i), got.ValueStr(k), "value %d (slot %d)", k, i)
		}
	}
}
