package encoding

import (
	"errors"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// fullZipMinBytes is the value size from which a 2.1 page is written full-zip (§5.6.2).
const fullZipMinBytes = 256

// EncodedPage is one encoded page: its buffers, in the order the page lists them, the number
// of top-level rows (for 2.0 item columns: the number of items), and the page encoding.
// Exactly one of Layout (2.1+) and Array (2.0) is set; a 2.0 struct header page has
// Array.SimpleStruct and no buffers.
type EncodedPage struct {
	Buffers [][]byte
	Rows    uint64
	Layout  *enc21pb.PageLayout
	Array   *enc20pb.ArrayEncoding
}

// dictPage is the dictionary part of a dictionary-encoded mini-block page.
type dictPage struct {
	encoding *enc21pb.CompressiveEncoding
	block    []byte
	items    int
}

// EncodeLeaf21 encodes one shredded leaf as a 2.1 page, or a 2.2 page when v22 is set
// (large-chunk mini-block grammar). The layout follows the 2.1 writer's choice (§5.6.2):
// all-null pages as AllNull/Constant, values of 256 bytes or more full-zip, everything
// else mini-block with RLE (long runs), bit-packing (integers), dictionary or FSST
// (strings) where they pay off. Levels are bit-packed (out of line, page-wide width)
// unless Lance would store them raw.
func EncodeLeaf21(l *ShreddedLeaf, v22 bool) (*EncodedPage, error) {
	anyValid := false
	for _, ok := range l.Valid {
		if ok {
			anyValid = true
			break
		}
	}
	if !anyValid {
		return encodeAllNull(l, v22), nil
	}
	vals, err := gatherValues(l)
	if err != nil {
		return nil, err
	}
	if vals.valueBytes() >= fullZipMinBytes {
		return encodeFullZip(l, vals)
	}
	var enc chunkEncoder
	var dict *dictPage
	switch vals.kind {
	case valVariable:
		if d := buildDictionary(vals); d != nil {
			block, err := compress.EncodeVariableBlock(d.items, vals.offsetBits)
			if err != nil {
				return nil, err
			}
			dict = &dictPage{encoding: variableEnc(vals.offsetBits), block: block, items: len(d.items)}
			enc, err = chooseFixed(d.indices, true)
			if err != nil {
				return nil, err
			}
		} else if enc, err = chooseVariable(vals); err != nil {
			return nil, err
		}
	default:
		if enc, err = chooseFixed(vals, isIntegerLike(l.Values.DataType())); err != nil {
			return nil, err
		}
	}
	p, err := encodeMiniBlock(l, enc, v22, dict)
	if errors.Is(err, errChunkTooBig) {
		return encodeFullZip(l, vals)
	}
	return p, err
}

// encodeAllNull writes a page whose visible values are all null: the simple AllNull layout
// when the leaf's validity is the only layer, otherwise the levels in raw u16 buffers.
func encodeAllNull(l *ShreddedLeaf, v22 bool) *EncodedPage {
	cl := &enc21pb.ConstantLayout{Layers: l.Layers}
	p := &EncodedPage{Rows: uint64(l.Rows),
		Layout: &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_ConstantLayout{ConstantLayout: cl}}}
	if l.Rep == nil && len(l.Layers) == 1 {
		return p
	}
	rep, def := levelBytes(l.Rep), levelBytes(l.Def)
	if v22 {
		cl.NumRepValues, cl.NumDefValues = uint64(len(l.Rep)), uint64(len(l.Def))
	}
	p.Buffers = [][]byte{rep, def}
	return p
}

func bitLen(x uint64) int {
	n := 0
	for x > 0 {
		n++
		x >>= 1
	}
	return n
}
