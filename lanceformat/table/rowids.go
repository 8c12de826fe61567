package table

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// DecodeRowIDs expands a serialized lance.table.RowIdSequence (DataFragment.inline_row_ids)
// into one row id per physical row; the sequence must hold exactly physicalRows ids.
// Errors wrap ErrCorruptFile.
func DecodeRowIDs(data []byte, physicalRows uint64) ([]uint64, error) {
	var seq lancepb.RowIdSequence
	if err := proto.Unmarshal(data, &seq); err != nil {
		return nil, fmt.Errorf("row id sequence: %w: %w", ErrCorruptFile, err)
	}
	var out []uint64
	for i, seg := range seq.GetSegments() {
		var err error
		if out, err = appendSegment(out, seg, physicalRows); err != nil {
			return nil, fmt.Errorf("row id sequence segment %d: %w: %w", i, ErrCorruptFile, err)
		}
	}
	if uint64(len(out)) != physicalRows {
		return nil, fmt.Errorf("row id sequence: %w: %d ids for %d rows", ErrCorruptFile, len(out), physicalRows)
	}
	return out, nil
}

func appendSegment(out []uint64, seg *lancepb.U64Segment, limit uint64) ([]uint64, error) {
	checkRange := func(start, end uint64) error {
		if end < start || end-start > limit-uint64(len(out)) {
			return fmt.Errorf("bad range [%d,%d) for %d rows", start, end, limit)
		}
		return nil
	}
	switch s := seg.GetSegment().(type) {
	case *lancepb.U64Segment_Range_:
		r := s.Range
		if err := checkRange(r.GetStart(), r.GetEnd()); err != nil {
			return nil, err
		}
		for v := r.GetStart(); v < r.GetEnd(); v++ {
			out = append(out, v)
		}
	case *lancepb.U64Segment_RangeWithHoles_:
		var err error
		if out, err = appendRangeWithHoles(out, s.RangeWithHoles, limit); err != nil {
			return nil, err
		}
	case *lancepb.U64Segment_RangeWithBitmap_:
		var err error
		if out, err = appendRangeWithBitmap(out, s.RangeWithBitmap); err != nil {
			return nil, err
		}
	case *lancepb.U64Segment_SortedArray:
		vals, err := decodeU64Array(s.SortedArray)
		if err != nil {
			return nil, err
		}
		out = append(out, vals...)
	case *lancepb.U64Segment_Array:
		vals, err := decodeU64Array(s.Array)
		if err != nil {
			return nil, err
		}
		out = append(out, vals...)
	default:
		return nil, fmt.Errorf("empty or unknown segment kind %T", s)
	}
	if uint64(len(out)) > limit {
		return nil, fmt.Errorf("more than %d row ids", limit)
	}
	return out, nil
}

func appendRangeWithHoles(out []uint64, r *lancepb.U64Segment_RangeWithHoles, limit uint64) ([]uint64, error) {
	holes, err := decodeU64Array(r.GetHoles())
	if err != nil {
		return nil, err
	}
	if r.GetEnd() < r.GetStart() || r.GetEnd()-r.GetStart() > limit-uint64(len(out))+uint64(len(holes)) {
		return nil, fmt.Errorf("bad range [%d,%d) with %d holes for %d rows", r.GetStart(), r.GetEnd(), len(holes), limit)
	}
	h := 0
	for v := r.GetStart(); v < r.GetEnd(); v++ {
		for h < len(holes) && holes[h] < v {
			h++
		}
		if h < len(holes) && holes[h] == v {
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

func appendRangeWithBitmap(out []uint64, r *lancepb.U64Segment_RangeWithBitmap) ([]uint64, error) {
	if r.GetEnd() < r.GetStart() {
		return nil, fmt.Errorf("bad range [%d,%d)", r.GetStart(), r.GetEnd())
	}
	bm := r.GetBitmap()
	if uint64(len(bm))*8 < r.GetEnd()-r.GetStart() {
		return nil, fmt.Errorf("bitmap of %d bytes too short for range [%d,%d)", len(bm), r.GetStart(), r.GetEnd())
	}
	for i := range r.GetEnd() - r.GetStart() {
		if bm[i/8]&(1<<(i%8)) != 0 { // LSB first, as the Lance code does
			out = append(out, r.GetStart()+i)
		}
	}
	return out, nil
}

func decodeU64Array(a *lancepb.EncodedU64Array) ([]uint64, error) {
	switch x := a.GetArray().(type) {
	case *lancepb.EncodedU64Array_U16Array_:
		b := x.U16Array.GetOffsets()
		if len(b)%2 != 0 {
			return nil, fmt.Errorf("u16 array of %d bytes", len(b))
		}
		out := make([]uint64, len(b)/2)
		for i := range out {
			out[i] = x.U16Array.GetBase() + uint64(binary.LittleEndian.Uint16(b[2*i:]))
		}
		return out, nil
	case *lancepb.EncodedU64Array_U32Array_:
		b := x.U32Array.GetOffsets()
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("u32 array of %d bytes", len(b))
		}
		out := make([]uint64, len(b)/4)
		for i := range out {
			out[i] = x.U32Array.GetBase() + uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out, nil
	case *lancepb.EncodedU64Array_U64Array_:
		b := x.U64Array.GetValues()
		if len(b)%8 != 0 {
			return nil, fmt.Errorf("u64 array of %d bytes", len(b))
		}
		out := make([]uint64, len(b)/8)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		return out, nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("unknown array kind %T", x)
	}
}
