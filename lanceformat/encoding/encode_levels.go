package encoding

import (
	"encoding/binary"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// levelBits is the width of rep/def levels.
const levelBits = 16

// levelCodec compresses the rep or def levels of each mini-block chunk with one scheme per
// page (§5.6.6): raw u16 (Flat 16), or out-of-line FastLanes bit-packing at the page-wide
// width w.
type levelCodec struct{ w int }

// chooseLevelCodec picks raw u16 when some 1024-level block is all zeros (as Lance does) or
// packing cannot shrink the levels, and out-of-line bit-packing otherwise.
func chooseLevelCodec(levels []uint16) levelCodec {
	var maxLevel uint16
	for s := 0; s < len(levels); s += compress.FastLanesBlockValues {
		var blockMax uint16
		for _, l := range levels[s:min(len(levels), s+compress.FastLanesBlockValues)] {
			blockMax = max(blockMax, l)
		}
		if blockMax == 0 {
			return levelCodec{w: levelBits}
		}
		maxLevel = max(maxLevel, blockMax)
	}
	return levelCodec{w: min(bitLen(uint64(maxLevel)), levelBits)}
}

// encoding describes the codec (MiniBlockLayout.rep_compression / def_compression).
func (c levelCodec) encoding() *enc21pb.CompressiveEncoding {
	if c.w >= levelBits {
		return flatEnc(levelBits)
	}
	return &enc21pb.CompressiveEncoding{Compression: &enc21pb.CompressiveEncoding_OutOfLineBitpacking{
		OutOfLineBitpacking: &enc21pb.OutOfLineBitpacking{UncompressedBitsPerValue: levelBits,
			Values: flatEnc(c.w)}}}
}

// encode compresses the levels of one chunk. Full 1024-level blocks are packed; a tail of
// t levels is packed as a zero-padded block only when w*(1024-t) < (16-w)*t, otherwise
// stored raw: the rule readers use to tell the two apart.
func (c levelCodec) encode(levels []uint16) ([]byte, error) {
	raw := make([]byte, 2*len(levels))
	for i, v := range levels {
		binary.LittleEndian.PutUint16(raw[2*i:], v)
	}
	if c.w >= levelBits {
		return raw, nil
	}
	const block = compress.FastLanesBlockValues
	full, tail := len(levels)/block, len(levels)%block
	var out []byte
	var err error
	for b := range full {
		if out, err = compress.FastLanesPack(out, levelBits, c.w, raw[2*b*block:]); err != nil {
			return nil, err
		}
	}
	if tail == 0 {
		return out, nil
	}
	rest := raw[2*full*block:]
	if c.w*(block-tail) < (levelBits-c.w)*tail {
		padded := make([]byte, 2*block)
		copy(padded, rest)
		return compress.FastLanesPack(out, levelBits, c.w, padded)
	}
	return append(out, rest...), nil
}
