package encoding_test

import (
	"fmt"
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

func TestLeafOptionsFromMetadata(t *testing.T) {
	tests := []struct {
		md      map[string]string
		want    string
		level   int32 // -1: none
		wantErr bool
	}{
		{nil, "", -1, false},
		{map[string]string{encoding.MetaCompression: "zstd", encoding.MetaCompressionLevel: "9"}, "zstd", 9, false},
		{map[string]string{encoding.MetaCompression: "lz4", encoding.MetaCompressionLevel: "fast"}, "lz4", -1, false},
		{map[string]string{encoding.MetaCompression: "none"}, "none", -1, false},
		{map[string]string{encoding.MetaCompression: "brotli"}, "", -1, true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.md), func(t *testing.T) {
			o, err := encoding.LeafOptionsFromMetadata(tc.md)
			if tc.wantErr {
				require.ErrorIs(t, err, encoding.ErrNotSupported)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, o.Compression)
			if tc.level < 0 {
				require.Nil(t, o.Level)
			} else {
				require.Equal(t, tc.level, *o.Level)
			}
		})
	}
}

// buildArray builds an array of n values of typ with fill.
func buildArray(mem memory.Allocator, typ arrow.DataType, n int, fill func(b array.Builder, i int)) arrow.Array {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for i := range n {
		fill(b, i)
	}
	return b.NewArray()
}

func TestEncodeLeaf21General(t *testing.T) {
	zstd := encoding.LeafOptions{Compression: "zstd"}
	lvl := int32(7)
	tests := []struct {
		name  string
		typ   arrow.DataType
		n     int
		fill  func(b array.Builder, i int)
		opts  encoding.LeafOptions
		check func(t *testing.T, p *encoding.EncodedPage)
	}{
		{"zstd wraps bit-packed ints", arrow.PrimitiveTypes.Int64, 5000, func(b array.Builder, i int) {
			if i%9 == 0 {
				b.AppendNull()
				return
			}
			b.(*array.Int64Builder).Append(int64(i * 31 % 5000))
		}, encoding.LeafOptions{Compression: "zstd", Level: &lvl}, func(t *testing.T, p *encoding.EncodedPage) {
			g := p.Layout.GetMiniBlockLayout().GetValueCompression().GetGeneral()
			require.NotNil(t, g)
			require.Equal(t, enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_ZSTD, g.GetCompression().GetScheme())
			require.Equal(t, int32(7), g.GetCompression().GetLevel())
			require.NotNil(t, g.GetValues().GetInlineBitpacking())
		}},
		{"lz4 wraps strings", arrow.BinaryTypes.String, 3000, func(b array.Builder, i int) {
			b.(*array.StringBuilder).Append(fmt.Sprintf("row-%d-%s", i, strings.Repeat("ab", i%5)))
		}, encoding.LeafOptions{Compression: "lz4"}, func(t *testing.T, p *encoding.EncodedPage) {
			g := p.Layout.GetMiniBlockLayout().GetValueCompression().GetGeneral()
			require.NotNil(t, g)
			require.Equal(t, enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_LZ4, g.GetCompression().GetScheme())
			require.Nil(t, g.GetCompression().Level)
			require.NotNil(t, g.GetValues().GetVariable())
		}},
		{"small pages stay unwrapped", arrow.PrimitiveTypes.Int32, 100, func(b array.Builder, i int) {
			b.(*array.Int32Builder).Append(int32(i * 1000003))
		}, zstd, func(t *testing.T, p *encoding.EncodedPage) {
			require.Nil(t, p.Layout.GetMiniBlockLayout().GetValueCompression().GetGeneral())
		}},
		{"none keeps ints flat", arrow.PrimitiveTypes.Int64, 3000, func(b array.Builder, i int) {
			b.(*array.Int64Builder).Append(int64(i % 10))
		}, encoding.LeafOptions{Compression: "none"}, func(t *testing.T, p *encoding.EncodedPage) {
			require.Equal(t, uint64(64), p.Layout.GetMiniBlockLayout().GetValueCompression().GetFlat().GetBitsPerValue())
		}},
		{"none keeps strings plain", arrow.BinaryTypes.String, 3000, func(b array.Builder, i int) {
			b.(*array.StringBuilder).Append(fmt.Sprintf("https://example.com/a/long/path/%d", i))
		}, encoding.LeafOptions{Compression: "none"}, func(t *testing.T, p *encoding.EncodedPage) {
			require.NotNil(t, p.Layout.GetMiniBlockLayout().GetValueCompression().GetVariable())
		}},
		{"huge strings get per-value zstd by default", arrow.BinaryTypes.LargeString, 6, func(b array.Builder, i int) {
			if i == 2 {
				b.AppendNull()
				return
			}
			b.(*array.LargeStringBuilder).Append(strings.Repeat(fmt.Sprintf("value %d ", i), 5000))
		}, encoding.LeafOptions{}, func(t *testing.T, p *encoding.EncodedPage) {
			fz := p.Layout.GetFullZipLayout()
			g := fz.GetValueCompression().GetGeneral()
			require.NotNil(t, g)
			require.Equal(t, enc21pb.CompressionScheme_COMPRESSION_ALGORITHM_ZSTD, g.GetCompression().GetScheme())
			require.Equal(t, uint64(64), g.GetValues().GetVariable().GetOffsets().GetFlat().GetBitsPerValue())
			require.Less(t, len(p.Buffers[0]), 5*40000/10, "zstd shrinks repetitive values")
		}},
		{"asked zstd compresses wide strings per value", arrow.BinaryTypes.String, 200, func(b array.Builder, i int) {
			b.(*array.StringBuilder).Append(fmt.Sprintf("%s%d", strings.Repeat("lance file ", 30), i))
		}, zstd, func(t *testing.T, p *encoding.EncodedPage) {
			require.NotNil(t, p.Layout.GetFullZipLayout().GetValueCompression().GetGeneral())
		}},
	}
	for _, tc := range tests {
		for _, v22 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/v22=%v", tc.name, v22), func(t *testing.T) {
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				a := buildArray(mem, tc.typ, tc.n, tc.fill)
				defer a.Release()
				leaves, err := encoding.ShredLeaves(a)
				require.NoError(t, err)
				p, err := encoding.EncodeLeaf21With(leaves[0], v22, tc.opts)
				require.NoError(t, err)
				tc.check(t, p)
				checkDecodesBack(t, p, a, leaves[0], mem)
			})
		}
	}
}

func TestEncodeLeaf21ArrowDictionary(t *testing.T) {
	tests := []struct {
		name      string
		typ       *arrow.DictionaryType
		keys      string
		dict      string
		keyBits   uint64
		dictItems uint64
	}{
		{"int32 keys of strings", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
			`[0,1,null,2,1,0]`, `["red","green","blue"]`, 32, 3},
		{"int8 keys of binary keep unused values", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.Binary},
			`[1,1,0,null]`, `["eA==","eQ==","dW51c2Vk"]`, 8, 3},
		{"int16 keys of int64", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.PrimitiveTypes.Int64},
			`[3,2,1,0,null,3]`, `[10,20,30,-40]`, 16, 4},
	}
	for _, tc := range tests {
		for _, v22 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/v22=%v", tc.name, v22), func(t *testing.T) {
				mem := memtest.NewChecked(t)
				defer mem.AssertSize(t, 0)
				keys := fromJSON(t, mem, tc.typ.IndexType, tc.keys)
				defer keys.Release()
				dict := fromJSON(t, mem, tc.typ.ValueType, tc.dict)
				defer dict.Release()
				a := array.NewDictionaryArray(tc.typ, keys, dict)
				defer a.Release()
				leaves, err := encoding.ShredLeaves(a)
				require.NoError(t, err)
				require.Len(t, leaves, 1)
				p, err := encoding.EncodeLeaf21(leaves[0], v22)
				require.NoError(t, err)
				mb := p.Layout.GetMiniBlockLayout()
				require.NotNil(t, mb)
				require.Equal(t, tc.dictItems, mb.GetNumDictionaryItems())
				require.Equal(t, tc.keyBits, mb.GetValueCompression().GetFlat().GetBitsPerValue())
				require.Equal(t, v22, mb.GetDictionary().GetGeneral() != nil, "2.2 dictionaries are LZ4-compressed")
				checkDecodesBack(t, p, a, leaves[0], mem)
			})
		}
	}
}

func TestCheckWritableDictionary(t *testing.T) {
	tests := []struct {
		typ arrow.DataType
		ok  bool
	}{
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, true},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Float64}, true},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint64, ValueType: arrow.BinaryTypes.String}, false},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.LargeString}, false},
		{&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.FixedWidthTypes.Boolean}, false},
		{arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.Binary}), true},
	}
	for _, tc := range tests {
		t.Run(tc.typ.String(), func(t *testing.T) {
			err := encoding.CheckWritable(tc.typ)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, encoding.ErrNotSupported)
			}
		})
	}
}

func TestEncodeArrowDictionaryRejectsBadKeys(t *testing.T) {
	tests := []struct {
		name string
		fill func(b *array.BinaryDictionaryBuilder) error
	}{
		// arrow-go lets a builder grow past the key type; the keys no longer fit int8.
		{"keys past the key type", func(b *array.BinaryDictionaryBuilder) error {
			for i := range 200 {
				if err := b.AppendString(fmt.Sprint(i)); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
			b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
			defer b.Release()
			require.NoError(t, tc.fill(b))
			a := b.NewArray()
			defer a.Release()
			leaves, err := encoding.ShredLeaves(a)
			require.NoError(t, err)
			_, err = encoding.EncodeLeaf21(leaves[0], false)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, "does not fit int8")
		})
	}
}

func TestEncodeColumns20With(t *testing.T) {
	tests := []struct {
		name       string
		typ        arrow.DataType
		js         string
		opts       []encoding.LeafOptions
		compressed []bool // per page: bytes compressed
		wantErr    bool
	}{
		{"zstd strings", arrow.BinaryTypes.String, `["a","bb",null,"ccc"]`,
			[]encoding.LeafOptions{{Compression: "zstd"}}, []bool{true}, false},
		{"lz4 is ignored in 2.0", arrow.BinaryTypes.Binary, `["YQ==",null]`,
			[]encoding.LeafOptions{{Compression: "lz4"}}, []bool{false}, false},
		{"list of strings: the item column", arrow.ListOf(arrow.BinaryTypes.LargeString), `[["x","y"],null,[]]`,
			[]encoding.LeafOptions{{}, {Compression: "zstd"}}, []bool{false, true}, false},
		{"option count must match the columns", arrow.BinaryTypes.String, `["a"]`, nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			a := fromJSON(t, mem, tc.typ, tc.js)
			defer a.Release()
			pages, err := encoding.EncodeColumns20With(a, tc.opts)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Len(t, pages, len(tc.compressed))
			for k, p := range pages {
				got := p.Array.GetBinary().GetBytes().GetFlat().GetCompression().GetScheme()
				if tc.compressed[k] {
					require.Equal(t, "zstd", got, "page %d", k)
				} else {
					require.Empty(t, got, "page %d", k)
				}
			}
		})
	}
}
