package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// The compressive Dictionary{indices, items, num_dictionary_items} (§5.6.7) as a block
// of fixed-width values. pylance 14 never writes it (its 2.1/2.2 writers put dictionaries
// in the mini-block layout, which miniblock.go decodes); later Lance writers use it as a
// block codec for bounded unsigned sequences (levels, offsets), framed as
//
//	u64 LE indices payload size | u64 LE items payload size | indices payload | items payload
//
// where the indices (u32 in Lance's writer) decode through their own encoding to n values
// and the items to num_dictionary_items values; value i is items[indices[i]]. It is
// decoded wherever a fixed-width block or chunk buffer is (DecodeFixed), and tested with
// hand-built blocks. Children without a payload (metadata-only encodings such as Constant
// or Lance's later Range) are not supported yet.

// dictionaryFrame is the size of the two u64 payload sizes heading a dictionary block.
const dictionaryFrame = 16

// maxDictionaryItems bounds num_dictionary_items (Lance's writer caps it at 4096).
const maxDictionaryItems = 1 << 20

// decodeDictionaryFixed decodes n values of a Dictionary block held in bufs[0].
func decodeDictionaryFixed(d *enc21pb.Dictionary, bufs [][]byte, n, depth int) ([]byte, int, error) {
	items := int(d.GetNumDictionaryItems())
	if items == 0 || items > maxDictionaryItems {
		return nil, 0, fmt.Errorf("dictionary of %d items: %w", items, ErrCorrupt)
	}
	b := bufs[0]
	if len(b) < dictionaryFrame {
		return nil, 0, fmt.Errorf("dictionary block of %d bytes: %w", len(b), ErrCorrupt)
	}
	is, ts := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if is > uint64(len(b)-dictionaryFrame) || ts != uint64(len(b)-dictionaryFrame)-is {
		return nil, 0, fmt.Errorf("dictionary block framing %d+%d in %d bytes: %w", is, ts, len(b)-dictionaryFrame, ErrCorrupt)
	}
	idxBuf, itemBuf := b[dictionaryFrame:dictionaryFrame+is], b[dictionaryFrame+is:]
	idx, ib, err := decodeFixed(d.GetIndices(), [][]byte{idxBuf}, n, depth+1)
	if err != nil {
		return nil, 0, fmt.Errorf("dictionary indices: %w", err)
	}
	vals, vb, err := decodeFixed(d.GetItems(), [][]byte{itemBuf}, items, depth+1)
	if err != nil {
		return nil, 0, fmt.Errorf("dictionary items: %w", err)
	}
	if ib%8 != 0 || ib == 0 || ib > 64 || vb%8 != 0 || vb == 0 {
		return nil, 0, NotSupported("dictionary of %d-bit indices and %d-bit items", ib, vb)
	}
	iw, vw := ib/8, vb/8
	if len(idx) < n*iw || len(vals) < items*vw {
		return nil, 0, fmt.Errorf("dictionary decoded short: %w", ErrCorrupt)
	}
	out := make([]byte, n*vw)
	for i := range n {
		k := readBits(idx[i*iw:], 0, ib)
		if k >= uint64(items) {
			return nil, 0, fmt.Errorf("dictionary index %d of %d items at %d: %w", k, items, i, ErrCorrupt)
		}
		copy(out[i*vw:(i+1)*vw], vals[int(k)*vw:(int(k)+1)*vw])
	}
	return out, vb, nil
}
