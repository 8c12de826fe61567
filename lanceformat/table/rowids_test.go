package table_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

func u16s(vals ...uint16) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

func TestDecodeRowIDSegments(t *testing.T) {
	rng := func(s, e uint64) *lancepb.U64Segment {
		return &lancepb.U64Segment{Segment: &lancepb.U64Segment_Range_{Range: &lancepb.U64Segment_Range{Start: s, End: e}}}
	}
	u64 := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1<<40), 7)
	cases := []struct {
		name    string
		segs    []*lancepb.U64Segment
		rows    uint64
		want    []uint64
		wantErr bool
	}{
		{"range", []*lancepb.U64Segment{rng(5, 8)}, 3, []uint64{5, 6, 7}, false},
		{"two ranges", []*lancepb.U64Segment{rng(0, 2), rng(10, 11)}, 3, []uint64{0, 1, 10}, false},
		{"holes", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_RangeWithHoles_{RangeWithHoles: &lancepb.U64Segment_RangeWithHoles{
			Start: 10, End: 15, Holes: &lancepb.EncodedU64Array{Array: &lancepb.EncodedU64Array_U16Array_{U16Array: &lancepb.EncodedU64Array_U16Array{Base: 10, Offsets: u16s(1, 3)}}},
		}}}}, 3, []uint64{10, 12, 14}, false},
		{"bitmap LSB first", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_RangeWithBitmap_{RangeWithBitmap: &lancepb.U64Segment_RangeWithBitmap{
			Start: 100, End: 110, Bitmap: []byte{0b00000101, 0b10},
		}}}}, 3, []uint64{100, 102, 109}, false},
		{"sorted u32 array", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_SortedArray{SortedArray: &lancepb.EncodedU64Array{Array: &lancepb.EncodedU64Array_U32Array_{U32Array: &lancepb.EncodedU64Array_U32Array{Base: 1000, Offsets: []byte{1, 0, 0, 0, 0, 1, 0, 0}}}}}}}, 2, []uint64{1001, 1256}, false},
		{"u64 array", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_Array{Array: &lancepb.EncodedU64Array{Array: &lancepb.EncodedU64Array_U64Array_{U64Array: &lancepb.EncodedU64Array_U64Array{Values: u64}}}}}}, 2, []uint64{1 << 40, 7}, false},
		{"too few", []*lancepb.U64Segment{rng(0, 2)}, 3, nil, true},
		{"too many", []*lancepb.U64Segment{rng(0, 1<<60)}, 3, nil, true},
		{"backwards", []*lancepb.U64Segment{rng(5, 2)}, 3, nil, true},
		{"short bitmap", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_RangeWithBitmap_{RangeWithBitmap: &lancepb.U64Segment_RangeWithBitmap{Start: 0, End: 9, Bitmap: []byte{0xff}}}}}, 8, nil, true},
		{"odd u16 bytes", []*lancepb.U64Segment{{Segment: &lancepb.U64Segment_Array{Array: &lancepb.EncodedU64Array{Array: &lancepb.EncodedU64Array_U16Array_{U16Array: &lancepb.EncodedU64Array_U16Array{Offsets: []byte{1}}}}}}}, 0, nil, true},
		{"empty segment", []*lancepb.U64Segment{{}}, 0, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := proto.Marshal(&lancepb.RowIdSequence{Segments: c.segs})
			require.NoError(t, err)
			got, err := table.DecodeRowIDs(data, c.rows)
			if c.wantErr {
				require.ErrorIs(t, err, table.ErrCorruptFile)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}
