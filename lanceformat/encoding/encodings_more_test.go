package encoding_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Hand-built pages for the encodings pylance 14 does not write (decode20_more.go,
// dictionary21.go) and for packed-struct cases its fixtures do not reach.

func pageBuf(i uint32) *enc20pb.Buffer { return &enc20pb.Buffer{BufferIndex: i} }

func flat20(bits uint64, buf uint32) *enc20pb.ArrayEncoding {
	return &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Flat{Flat: &enc20pb.Flat{BitsPerValue: bits, Buffer: pageBuf(buf)}}}
}

// packBits packs the low w bits of each value back to back, LSB-first.
func packBits(vals []uint64, w int) []byte {
	out := make([]byte, (len(vals)*w+7)/8)
	for i, v := range vals {
		for k := range w {
			if v>>k&1 == 1 {
				pos := i*w + k
				out[pos/8] |= 1 << (pos % 8)
			}
		}
	}
	return out
}

// decode20String decodes a 2.0 page and renders the result as Arrow's String().
func decode20String(t *testing.T, typ arrow.DataType, enc *enc20pb.ArrayEncoding, bufs [][]byte, n uint64) (string, error) {
	t.Helper()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	b, err := encoding.NewBuilder(typ)
	require.NoError(t, err)
	if err := encoding.Decode20(b, enc, bufs, n); err != nil {
		return "", err
	}
	arr, err := b.FinishArray(mem)
	require.NoError(t, err)
	defer arr.Release()
	return arr.String(), nil
}

func TestDecode20MoreEncodings(t *testing.T) {
	signed := []int64{-50, 49, 0, -1, 17, -33, 5}
	su := make([]uint64, len(signed))
	for i, v := range signed {
		su[i] = uint64(v)
	}
	fsb := []byte("abcdefghi")
	tests := []struct {
		name string
		typ  arrow.DataType
		enc  *enc20pb.ArrayEncoding
		bufs [][]byte
		n    uint64
		want string
	}{
		{"bitpacked unsigned", arrow.PrimitiveTypes.Uint32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
				CompressedBitsPerValue: 11, UncompressedBitsPerValue: 32, Buffer: pageBuf(0)}}},
			[][]byte{packBits([]uint64{0, 1, 2047, 1024, 77}, 11)}, 5, "[0 1 2047 1024 77]"},
		{"bitpacked signed", arrow.PrimitiveTypes.Int16,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
				CompressedBitsPerValue: 7, UncompressedBitsPerValue: 16, Buffer: pageBuf(0), Signed: true}}},
			[][]byte{packBits(su, 7)}, 7, "[-50 49 0 -1 17 -33 5]"},
		{"bitpacked in nullable", arrow.PrimitiveTypes.Uint8,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Nullable{Nullable: &enc20pb.Nullable{
				Nullability: &enc20pb.Nullable_SomeNulls{SomeNulls: &enc20pb.Nullable_SomeNull{
					Validity: flat20(1, 0),
					Values: &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
						CompressedBitsPerValue: 3, UncompressedBitsPerValue: 8, Buffer: pageBuf(1)}}}}}}}},
			[][]byte{{0b101}, packBits([]uint64{5, 0, 7}, 3)}, 3, "[5 (null) 7]"},
		{"constant int32", arrow.PrimitiveTypes.Int32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Constant{Constant: &enc20pb.Constant{Value: []byte{42, 0, 0, 0}}}},
			nil, 3, "[42 42 42]"},
		{"constant string", arrow.BinaryTypes.String,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Constant{Constant: &enc20pb.Constant{Value: []byte("ab")}}},
			nil, 2, `["ab" "ab"]`},
		{"fixed size binary", arrow.BinaryTypes.String,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeBinary{FixedSizeBinary: &enc20pb.FixedSizeBinary{
				ByteWidth: 3, Bytes: flat20(8, 0)}}},
			[][]byte{fsb}, 3, `["abc" "def" "ghi"]`},
		{"packed struct", arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
			arrow.Field{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Uint8), Nullable: true}),
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
				Inner: []*enc20pb.ArrayEncoding{flat20(16, 0), {ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeList{
					FixedSizeList: &enc20pb.FixedSizeList{Dimension: 2, Items: flat20(8, 0)}}}},
				Buffer: pageBuf(0)}}},
			[][]byte{{1, 0, 7, 8, 0xFF, 0xFF, 9, 10}}, 2, `{[1 -1] [[7 8] [9 10]]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode20String(t, tc.typ, tc.enc, tc.bufs, tc.n)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestDecode20BitpackedForNonNeg(t *testing.T) {
	for _, tc := range []struct {
		typ  arrow.DataType
		t, w int
		n    int
	}{{arrow.PrimitiveTypes.Uint32, 32, 12, 2500}, {arrow.PrimitiveTypes.Int64, 64, 40, 1024},
		{arrow.PrimitiveTypes.Uint8, 8, 1, 3}, {arrow.PrimitiveTypes.Int16, 16, 0, 10}} {
		t.Run(fmt.Sprintf("%s/w%d/n%d", tc.typ, tc.w, tc.n), func(t *testing.T) {
			vals := make([]uint64, tc.n)
			want := make([]string, tc.n)
			for i := range vals {
				if tc.w > 0 {
					vals[i] = uint64(i*7919) % (1 << tc.w)
				}
				want[i] = fmt.Sprint(vals[i])
			}
			var packed []byte
			for blk := 0; blk < tc.n; blk += 1024 {
				words := make([]byte, 1024*tc.t/8)
				for i := blk; i < min(blk+1024, tc.n); i++ {
					putLE(words[(i-blk)*tc.t/8:], tc.t, vals[i])
				}
				var err error
				packed, err = compress.FastLanesPack(packed, tc.t, tc.w, words)
				require.NoError(t, err)
			}
			enc := &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_BitpackedForNonNeg{BitpackedForNonNeg: &enc20pb.BitpackedForNonNeg{
				CompressedBitsPerValue: uint64(tc.w), UncompressedBitsPerValue: uint64(tc.t), Buffer: pageBuf(0)}}}
			got, err := decode20String(t, tc.typ, enc, [][]byte{packed}, uint64(tc.n))
			require.NoError(t, err)
			require.Equal(t, "["+strings.Join(want, " ")+"]", got)
			if len(packed) > 0 {
				_, err = decode20String(t, tc.typ, enc, [][]byte{packed[:len(packed)-1]}, uint64(tc.n))
				require.ErrorIs(t, err, encoding.ErrCorrupt)
			}
		})
	}
}

func putLE(dst []byte, bits int, v uint64) {
	switch bits {
	case 8:
		dst[0] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(dst, uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	default:
		binary.LittleEndian.PutUint64(dst, v)
	}
}

func TestDecode20MoreEncodingsBadInput(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	tests := []struct {
		name    string
		typ     arrow.DataType
		enc     *enc20pb.ArrayEncoding
		bufs    [][]byte
		n       uint64
		wantErr error
	}{
		{"bitpacked short buffer", arrow.PrimitiveTypes.Uint32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
				CompressedBitsPerValue: 11, UncompressedBitsPerValue: 32, Buffer: pageBuf(0)}}},
			[][]byte{{1, 2}}, 5, encoding.ErrCorrupt},
		{"bitpacked wrong width", arrow.PrimitiveTypes.Uint32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
				CompressedBitsPerValue: 11, UncompressedBitsPerValue: 16, Buffer: pageBuf(0)}}},
			[][]byte{make([]byte, 8)}, 5, encoding.ErrCorrupt},
		{"bitpacked missing buffer", arrow.PrimitiveTypes.Uint32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{
				CompressedBitsPerValue: 3, UncompressedBitsPerValue: 32, Buffer: pageBuf(4)}}},
			[][]byte{make([]byte, 8)}, 5, encoding.ErrCorrupt},
		{"constant of the wrong size", arrow.PrimitiveTypes.Int32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Constant{Constant: &enc20pb.Constant{Value: []byte{1}}}},
			nil, 3, encoding.ErrCorrupt},
		{"packed struct short buffer", st,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
				Inner: []*enc20pb.ArrayEncoding{flat20(32, 0)}, Buffer: pageBuf(0)}}},
			[][]byte{make([]byte, 7)}, 2, encoding.ErrCorrupt},
		{"packed struct child count", st,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
				Inner: []*enc20pb.ArrayEncoding{flat20(32, 0), flat20(32, 0)}, Buffer: pageBuf(0)}}},
			[][]byte{make([]byte, 16)}, 2, encoding.ErrCorrupt},
		{"packed struct of a primitive", arrow.PrimitiveTypes.Int32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
				Inner: []*enc20pb.ArrayEncoding{flat20(32, 0)}, Buffer: pageBuf(0)}}},
			[][]byte{make([]byte, 8)}, 2, encoding.ErrCorrupt},
		{"packed struct bit child", arrow.StructOf(arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean}),
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
				Inner: []*enc20pb.ArrayEncoding{flat20(1, 0)}, Buffer: pageBuf(0)}}},
			[][]byte{{1}}, 2, encoding.ErrNotSupported},
		{"fsst bad symbol table", arrow.BinaryTypes.String,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Fsst{Fsst: &enc20pb.Fsst{SymbolTable: []byte{1, 2, 3}}}},
			nil, 1, nil},
		{"unknown variant", arrow.PrimitiveTypes.Int32,
			&enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Rle{Rle: &enc20pb.Rle{}}},
			nil, 1, encoding.ErrNotSupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode20String(t, tc.typ, tc.enc, tc.bufs, tc.n)
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
		})
	}
}

// dictBlock frames a compressive Dictionary block as Lance's block writer does.
func dictBlock(idx, items []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(idx)))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(items)))
	return append(append(out, idx...), items...)
}

func flat21(bits uint64) *enc21pb.CompressiveEncoding {
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Flat{Flat: &enc21pb.Flat{BitsPerValue: bits}}}
}

func TestDecodeDictionaryBlock(t *testing.T) {
	u32s := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	u64s := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		return b
	}
	dict := func(items uint32, itemBits uint64) *enc21pb.CompressiveEncoding {
		return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Dictionary{Dictionary: &enc21pb.Dictionary{
			Indices: flat21(32), Items: flat21(itemBits), NumDictionaryItems: items}}}
	}
	tests := []struct {
		name     string
		enc      *enc21pb.CompressiveEncoding
		buf      []byte
		n        int
		want     []byte
		wantBits int
		wantErr  error
	}{
		{"u64 items", dict(2, 64), dictBlock(u32s(0, 1, 0, 1, 1), u64s(10, 20)), 5, u64s(10, 20, 10, 20, 20), 64, nil},
		{"u32 items", dict(3, 32), dictBlock(u32s(2, 2, 0), u32s(7, 8, 9)), 3, u32s(9, 9, 7), 32, nil},
		{"index out of range", dict(2, 64), dictBlock(u32s(0, 2), u64s(10, 20)), 2, nil, 0, encoding.ErrCorrupt},
		{"framing past the end", dict(2, 64), dictBlock(u32s(0, 1), u64s(10, 20))[:30], 2, nil, 0, encoding.ErrCorrupt},
		{"short header", dict(2, 64), []byte{1, 2, 3}, 2, nil, 0, encoding.ErrCorrupt},
		{"no items", dict(0, 64), dictBlock(u32s(0), nil), 1, nil, 0, encoding.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, bits, err := encoding.DecodeFixed(tc.enc, [][]byte{tc.buf}, tc.n)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantBits, bits)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestPackedStructValues21(t *testing.T) {
	st := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Uint8, Nullable: true})
	rows := []byte{1, 0, 0, 0, 9, 0xFE, 0xFF, 0xFF, 0xFF, 3}
	packed := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_PackedStruct{PackedStruct: &enc21pb.PackedStruct{
		BitsPerValue: []uint64{32, 8}, Values: flat21(40)}}}
	zrows, err := compress.Compress(compress.SchemeZstd, 0, rows)
	require.NoError(t, err)
	general := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_General{General: &enc21pb.General{
		Compression: &enc21pb.BufferCompression{Scheme: enc21pb.CompressionScheme(compress.SchemeZstd)}, Values: packed}}}
	wrongBits := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_PackedStruct{PackedStruct: &enc21pb.PackedStruct{
		BitsPerValue: []uint64{32, 16}, Values: flat21(40)}}}
	tests := []struct {
		name    string
		enc     *enc21pb.CompressiveEncoding
		buf     []byte
		want    string
		wantErr error
	}{
		{"flat", packed, rows, `{[1 -2] [9 3]}`, nil},
		{"zstd", general, zrows, `{[1 -2] [9 3]}`, nil},
		{"children disagree with the row width", wrongBits, rows, "", encoding.ErrCorrupt},
		{"short", packed, rows[:7], "", compress.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(st)
			require.NoError(t, err)
			err = encoding.DecodeValuesInto(b, tc.enc, [][]byte{tc.buf}, 2)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			arr, err := b.FinishArray(mem)
			require.NoError(t, err)
			defer arr.Release()
			require.Equal(t, tc.want, arr.String())
		})
	}
}

func TestVariablePackedStructFullZip(t *testing.T) {
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	vps := &enc21pb.VariablePackedStruct{Fields: []*enc21pb.VariablePackedStruct_FieldEncoding{
		{Value: flat21(16), Layout: &enc21pb.VariablePackedStruct_FieldEncoding_BitsPerValue{BitsPerValue: 16}},
		{Value: &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Variable{Variable: &enc21pb.Variable{Offsets: flat21(32)}}},
			Layout: &enc21pb.VariablePackedStruct_FieldEncoding_BitsPerLength{BitsPerLength: 32}},
	}}
	row := func(x uint16, s string) []byte {
		v := binary.LittleEndian.AppendUint16(nil, x)
		v = binary.LittleEndian.AppendUint32(v, uint32(len(s)))
		return append(v, s...)
	}
	// Full-zip with a 1-bit def level (layers [NULLABLE_ITEM]) and 32-bit lengths: each
	// entry is a control byte, then, if valid, a u32 length and the packed value.
	var zipped []byte
	for _, r := range [][]byte{row(5, "hello"), nil, row(0xFFFF, "")} {
		if r == nil {
			zipped = append(zipped, 1)
			continue
		}
		zipped = append(zipped, 0)
		zipped = binary.LittleEndian.AppendUint32(zipped, uint32(len(r)))
		zipped = append(zipped, r...)
	}
	fz := &enc21pb.FullZipLayout{BitsRep: 0, BitsDef: 1, Details: &enc21pb.FullZipLayout_BitsPerOffset{BitsPerOffset: 32},
		NumItems: 3, NumVisibleItems: 3, Layers: []enc21pb.RepDefLayer{enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM},
		ValueCompression: &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_VariablePackedStruct{VariablePackedStruct: vps}}}
	pg, lv, err := encoding.DecodeFullZip(fz, st, zipped)
	require.NoError(t, err)
	out, err := encoding.NewBuilder(st)
	require.NoError(t, err)
	require.NoError(t, encoding.Assemble(lv, []encoding.PathNode{{B: out, Owner: true}}, pg, 0, 3))
	arr, err := out.FinishArray(mem)
	require.NoError(t, err)
	defer arr.Release()
	require.Equal(t, `{[5 (null) -1] ["hello" (null) ""]}`, arr.String())
	require.Equal(t, 1, arr.NullN())

	// A value longer than its fields is corrupt.
	bad := append([]byte{0}, binary.LittleEndian.AppendUint32(nil, 8)...)
	bad = append(bad, append(row(1, "a"), 0)...)
	fz.NumItems, fz.NumVisibleItems = 1, 1
	_, _, err = encoding.DecodeFullZip(fz, st, bad)
	require.True(t, errors.Is(err, encoding.ErrCorrupt), "%v", err)
}

// moreFuzzTypes are fuzzTypes plus the struct types packed structs decode into.
var moreFuzzTypes = append(append([]arrow.DataType{}, fuzzTypes...),
	arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		arrow.Field{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Uint8), Nullable: true}),
	arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}))

// FuzzDecode20More feeds arbitrary 2.0 encodings, seeded with the variants of
// decode20_more.go and packed structs, into Decode20 for the types above: errors are fine,
// panics are not.
func FuzzDecode20More(f *testing.F) {
	seeds := []*enc20pb.ArrayEncoding{
		{ArrayEncoding: &enc20pb.ArrayEncoding_Bitpacked{Bitpacked: &enc20pb.Bitpacked{CompressedBitsPerValue: 7, UncompressedBitsPerValue: 16, Buffer: pageBuf(0), Signed: true}}},
		{ArrayEncoding: &enc20pb.ArrayEncoding_BitpackedForNonNeg{BitpackedForNonNeg: &enc20pb.BitpackedForNonNeg{CompressedBitsPerValue: 3, UncompressedBitsPerValue: 32, Buffer: pageBuf(0)}}},
		{ArrayEncoding: &enc20pb.ArrayEncoding_Constant{Constant: &enc20pb.Constant{Value: []byte{1, 0}}}},
		{ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeBinary{FixedSizeBinary: &enc20pb.FixedSizeBinary{ByteWidth: 3, Bytes: flat20(8, 0)}}},
		{ArrayEncoding: &enc20pb.ArrayEncoding_PackedStruct{PackedStruct: &enc20pb.PackedStruct{
			Inner: []*enc20pb.ArrayEncoding{flat20(16, 0), {ArrayEncoding: &enc20pb.ArrayEncoding_FixedSizeList{
				FixedSizeList: &enc20pb.FixedSizeList{Dimension: 2, Items: flat20(8, 0)}}}}, Buffer: pageBuf(0)}}},
		{ArrayEncoding: &enc20pb.ArrayEncoding_Fsst{Fsst: &enc20pb.Fsst{Binary: &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Binary{
			Binary: &enc20pb.Binary{Indices: flat20(64, 0), Bytes: flat20(8, 1), NullAdjustment: 9}}}, SymbolTable: make([]byte, 2312)}}},
	}
	for i, s := range seeds {
		b, err := proto.Marshal(s)
		require.NoError(f, err)
		f.Add(b, []byte{1, 0, 7, 8, 0xFF, 0xFF, 9, 10, 3, 0, 0, 0, 0, 0, 0, 0}, []byte("abcdefgh"), uint16(2), uint8(i))
	}
	f.Fuzz(func(t *testing.T, enc, b0, b1 []byte, n uint16, typ uint8) {
		var e enc20pb.ArrayEncoding
		if proto.Unmarshal(enc, &e) != nil {
			return
		}
		b, err := encoding.NewBuilder(moreFuzzTypes[int(typ)%len(moreFuzzTypes)])
		require.NoError(t, err)
		if encoding.Decode20(b, &e, [][]byte{b0, b1}, uint64(n)%fuzzMaxRows) == nil {
			finishFuzz(t, b)
		}
	})
}

// FuzzStructValues21 feeds arbitrary 2.1 value encodings (seeded with PackedStruct,
// General and Dictionary) into the mini-block value decoder and arbitrary full-zip
// layouts (seeded with VariablePackedStruct) into the full-zip decoder.
func FuzzStructValues21(f *testing.F) {
	packed := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_PackedStruct{PackedStruct: &enc21pb.PackedStruct{
		BitsPerValue: []uint64{16, 16}, Values: flat21(32)}}}
	dict := &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Dictionary{Dictionary: &enc21pb.Dictionary{
		Indices: flat21(32), Items: flat21(32), NumDictionaryItems: 2}}}
	vps := &enc21pb.FullZipLayout{BitsDef: 1, Details: &enc21pb.FullZipLayout_BitsPerOffset{BitsPerOffset: 32},
		NumItems: 2, NumVisibleItems: 2, Layers: []enc21pb.RepDefLayer{enc21pb.RepDefLayer_REPDEF_NULLABLE_ITEM},
		ValueCompression: &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_VariablePackedStruct{VariablePackedStruct: &enc21pb.VariablePackedStruct{
			Fields: []*enc21pb.VariablePackedStruct_FieldEncoding{
				{Value: flat21(16), Layout: &enc21pb.VariablePackedStruct_FieldEncoding_BitsPerValue{BitsPerValue: 16}},
				{Value: &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_Variable{Variable: &enc21pb.Variable{Offsets: flat21(32)}}},
					Layout: &enc21pb.VariablePackedStruct_FieldEncoding_BitsPerLength{BitsPerLength: 32}}}}}}}
	for i, m := range []proto.Message{packed, dict, vps} {
		b, err := proto.Marshal(m)
		require.NoError(f, err)
		f.Add(b, dictBlock([]byte{0, 0, 0, 0, 1, 0, 0, 0}, []byte{7, 0, 0, 0, 9, 0, 0, 0}), uint16(2), uint8(len(fuzzTypes)+i%2), i == 2)
	}
	f.Fuzz(func(t *testing.T, enc, buf []byte, n uint16, typ uint8, fullZip bool) {
		leaf := moreFuzzTypes[int(typ)%len(moreFuzzTypes)]
		if fullZip {
			var l enc21pb.FullZipLayout
			if proto.Unmarshal(enc, &l) != nil || l.GetNumItems() > fuzzMaxRows {
				return
			}
			if p, lv, err := encoding.DecodeFullZip(&l, leaf, buf); err == nil {
				assembleFuzz(t, lv, p, leaf, 0, int(n)%fuzzMaxRows)
			}
			return
		}
		var e enc21pb.CompressiveEncoding
		if proto.Unmarshal(enc, &e) != nil {
			return
		}
		b, err := encoding.NewBuilder(leaf)
		require.NoError(t, err)
		if encoding.DecodeValuesInto(b, &e, [][]byte{buf}, int(n)%fuzzMaxRows) == nil {
			finishFuzz(t, b)
		}
	})
}
