package encoding

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

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
// (large-chunk mini-block grammar), with Lance's default choices (EncodeLeaf21With with
// zero options).
func EncodeLeaf21(l *ShreddedLeaf, v22 bool) (*EncodedPage, error) {
	return EncodeLeaf21With(l, v22, LeafOptions{})
}

// EncodeLeaf21With encodes one shredded leaf as a 2.1 (or, with v22, 2.2) page. The layout
// follows the 2.1 writer's choice (§5.6.2): all-null pages as AllNull/Constant, values of
// 256 bytes or more full-zip, everything else mini-block with RLE (long runs), bit-packing
// (integers), dictionary or FSST (strings) where they pay off; Arrow dictionary leaves as
// dictionary pages. opts (from field metadata) can turn compression off or ask for General
// zstd/lz4 compression around it. Levels are bit-packed (out of line, page-wide width)
// unless Lance would store them raw.
func EncodeLeaf21With(l *ShreddedLeaf, v22 bool, opts LeafOptions) (*EncodedPage, error) {
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
	if _, ok := l.Values.(*array.Dictionary); ok {
		return encodeArrowDictionary(l, v22, opts)
	}
	vals, err := gatherValues(l)
	if err != nil {
		return nil, err
	}
	if vals.valueBytes() >= fullZipMinBytes {
		return encodeFullZip(l, vals, opts)
	}
	enc, dict, err := chooseMiniBlock(l, vals, opts)
	if err != nil {
		return nil, err
	}
	p, err := encodeMiniBlockWith(l, enc, v22, dict, opts)
	if errors.Is(err, errChunkTooBig) {
		return encodeFullZip(l, vals, opts)
	}
	return p, err
}

// chooseMiniBlock picks the value storage of a mini-block page: a page dictionary for
// repetitive strings, else FSST or plain strings, else RLE, bit-packing or flat values;
// with compression "none" only flat values and plain strings, and with zstd/lz4 plain
// strings (General compression then wraps them).
func chooseMiniBlock(l *ShreddedLeaf, vals *leafValues, opts LeafOptions) (chunkEncoder, *dictPage, error) {
	if vals.kind != valVariable {
		if opts.Compression == "none" {
			return flatChunks{vals}, nil, nil
		}
		enc, err := chooseFixed(vals, isIntegerLike(l.Values.DataType()))
		return enc, nil, err
	}
	if d := buildDictionary(vals); d != nil {
		block, err := compress.EncodeVariableBlock(d.items, vals.offsetBits)
		if err != nil {
			return nil, nil, err
		}
		dict := &dictPage{encoding: variableEnc(vals.offsetBits), block: block, items: len(d.items)}
		enc, err := chooseFixed(d.indices, true)
		return enc, dict, err
	}
	if !opts.allowsFSST() {
		return variableChunks{v: vals}, nil, nil
	}
	enc, err := chooseVariable(vals)
	return enc, nil, err
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
