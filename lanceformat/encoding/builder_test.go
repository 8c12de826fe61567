package encoding_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
)

func TestBuilderAppends(t *testing.T) {
	tests := []struct {
		name  string
		typ   arrow.DataType
		build func(t *testing.T, b *encoding.Builder)
		want  string
	}{
		{"bools at bit offsets", arrow.FixedWidthTypes.Boolean, func(t *testing.T, b *encoding.Builder) {
			// values 1,0,1,1,0,0,1,0 | 1 ; validity all but bit 2
			require.NoError(t, b.AppendFixed([]byte{0b01001101, 1}, 1, 9, []byte{0b11111011, 1}))
			b.AppendNulls(1)
		}, `[false,null,true,false,false,true,false,true,null]`},
		{"strings", arrow.BinaryTypes.String, func(t *testing.T, b *encoding.Builder) {
			require.NoError(t, b.AppendVariable([]uint64{0, 2, 2, 5}, []byte("abcde"), 0, 3, []byte{0b101}))
			require.NoError(t, b.AppendValue([]byte("z"), true))
			b.AppendEmpty(1)
		}, `["ab",null,"cde","z",""]`},
		{"fixed size list", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int8), func(t *testing.T, b *encoding.Builder) {
			require.NoError(t, b.Child(0).AppendFixed([]byte{1, 2, 3, 4}, 0, 4, nil))
			require.NoError(t, b.AppendSlots(2, []byte{0b10}, 0))
			b.AppendNulls(1)
		}, `[null,[3,4],null]`},
		{"large list", arrow.LargeListOf(arrow.PrimitiveTypes.Int16), func(t *testing.T, b *encoding.Builder) {
			require.NoError(t, b.Child(0).AppendFixed([]byte{1, 0, 2, 0, 3, 0}, 0, 3, nil))
			require.NoError(t, b.AppendListEnds(0, []int64{2, 2, 3}, []bool{true, false, true}))
		}, `[[1,2],null,[3]]`},
		{"struct", arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int8, Nullable: true}), func(t *testing.T, b *encoding.Builder) {
			require.NoError(t, b.Child(0).AppendFixed([]byte{5, 6}, 0, 2, []byte{0b01}))
			require.NoError(t, b.AppendSlots(2, []byte{0b01}, 0))
		}, `[{"a":5},null]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			b, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			tc.build(t, b)
			// Copy through AppendFrom in two pieces, which must not change anything.
			c, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			require.NoError(t, c.AppendFrom(b, 0, 1))
			require.NoError(t, c.AppendFrom(b, 1, b.Len()))
			for _, bb := range []*encoding.Builder{b, c} {
				got, err := bb.FinishArray(mem)
				require.NoError(t, err)
				want, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.want))
				require.NoError(t, err)
				require.True(t, array.Equal(want, got), "want %s\ngot  %s", want, got)
				got.Release()
				want.Release()
			}
		})
	}
}

func TestBuilderRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		typ  arrow.DataType
		do   func(b *encoding.Builder) error
	}{
		{"fixed past buffer", arrow.PrimitiveTypes.Int32, func(b *encoding.Builder) error { return b.AppendFixed(make([]byte, 7), 0, 2, nil) }},
		{"validity past bitmap", arrow.PrimitiveTypes.Int8, func(b *encoding.Builder) error { return b.AppendFixed(make([]byte, 9), 0, 9, []byte{0xff}) }},
		{"offsets past data", arrow.BinaryTypes.String, func(b *encoding.Builder) error {
			return b.AppendVariable([]uint64{0, 9}, []byte("abc"), 0, 1, nil)
		}},
		{"offsets backwards", arrow.BinaryTypes.Binary, func(b *encoding.Builder) error {
			return b.AppendVariable([]uint64{2, 1}, []byte("abc"), 0, 1, nil)
		}},
		{"fixed into strings", arrow.BinaryTypes.String, func(b *encoding.Builder) error { return b.AppendFixed([]byte{1}, 0, 1, nil) }},
		{"string into ints", arrow.PrimitiveTypes.Int8, func(b *encoding.Builder) error { return b.AppendValue([]byte("x"), true) }},
		{"fsl missing items", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int8), func(b *encoding.Builder) error {
			if err := b.AppendSlots(1, nil, 0); err != nil {
				return err
			}
			_, err := b.Finish(memory.NewGoAllocator())
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := encoding.NewBuilder(tc.typ)
			require.NoError(t, err)
			require.ErrorIs(t, tc.do(b), encoding.ErrCorrupt)
		})
	}
}

func TestNewBuilderUnsupported(t *testing.T) {
	_, err := encoding.NewBuilder(arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String))
	require.ErrorIs(t, err, encoding.ErrNotSupported)
	require.ErrorContains(t, err, "not supported yet")
}

func TestUnsupportedEncodingNamed(t *testing.T) {
	b, err := encoding.NewBuilder(arrow.PrimitiveTypes.Int32)
	require.NoError(t, err)
	enc := &enc20pb.ArrayEncoding{ArrayEncoding: &enc20pb.ArrayEncoding_Rle{Rle: &enc20pb.Rle{}}}
	err = encoding.Decode20(b, enc, nil, 1)
	require.ErrorIs(t, err, encoding.ErrNotSupported)
	require.ErrorContains(t, err, "not supported yet: 2.0 encoding rle")
}
