package encoding

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// maxChunkItems caps the values one mini-block chunk may claim.
const maxChunkItems = 1 << 16

// Chunk locates one mini-block chunk inside the page's data buffer (buffer 1).
type Chunk struct {
	Off, Size uint64 // byte range in the data buffer
	FirstItem uint64 // index of the chunk's first visible item in the page
	Items     uint64 // visible items in the chunk
}

// ParseChunkMeta decodes the chunk metadata buffer (buffer 0) of a mini-block page: one u16
// word per chunk, or u32 in the 2.2 large-chunk grammar (§5.6.3, §5.7).
func ParseChunkMeta(meta []byte, numItems, dataSize uint64, large bool) ([]Chunk, error) {
	w := 2
	if large {
		w = 4
	}
	if len(meta)%w != 0 {
		return nil, fmt.Errorf("chunk metadata of %d bytes is not a whole number of words: %w", len(meta), ErrCorrupt)
	}
	n := len(meta) / w
	chunks := make([]Chunk, n)
	var off, items uint64
	for i := range chunks {
		var word uint64
		if large {
			word = uint64(binary.LittleEndian.Uint32(meta[4*i:]))
		} else {
			word = uint64(binary.LittleEndian.Uint16(meta[2*i:]))
		}
		size := ((word >> 4) + 1) * 8
		var cnt uint64
		if i == n-1 {
			if items > numItems {
				return nil, fmt.Errorf("chunks hold more than the page's %d items: %w", numItems, ErrCorrupt)
			}
			cnt = numItems - items
		} else {
			cnt = 1 << (word & 0xF)
		}
		if cnt > maxChunkItems || off+size > dataSize {
			return nil, fmt.Errorf("chunk %d (%d items, %d bytes at %d) does not fit (%d data bytes): %w",
				i, cnt, size, off, dataSize, ErrCorrupt)
		}
		chunks[i] = Chunk{Off: off, Size: size, FirstItem: items, Items: cnt}
		off += size
		items += cnt
	}
	if items != numItems {
		return nil, fmt.Errorf("chunks hold %d items, page says %d: %w", items, numItems, ErrCorrupt)
	}
	return chunks, nil
}

// MiniBlock decodes chunks of one mini-block page.
type MiniBlock struct {
	layout *enc21pb.MiniBlockLayout
	levels *Levels
	typ    arrow.DataType
	dict   *Builder   // decoded dictionary, if the page has one
	short  *shortDict // dict laid out for gathering short strings, built on first use
	idx    []byte     // reused buffer of a chunk's unpacked dictionary indices
	bufs   [][]byte   // reused slice headers of a chunk's value buffers (see splitChunk)
	vd     valueDecoder
}

// NewMiniBlock prepares decoding of a mini-block page of a leaf of type t. dict is the
// page's dictionary buffer (nil if the layout has none).
func NewMiniBlock(layout *enc21pb.MiniBlockLayout, t arrow.DataType, dict []byte) (*MiniBlock, error) {
	lv, err := NewLevels(layout.GetLayers())
	if err != nil {
		return nil, err
	}
	m := &MiniBlock{layout: layout, levels: lv, typ: t}
	if layout.GetDictionary() != nil {
		if m.dict, err = decodeDictionary(layout.GetDictionary(), dict, layout.GetNumDictionaryItems(), t); err != nil {
			return nil, fmt.Errorf("dictionary: %w", err)
		}
	}
	return m, nil
}

// Levels returns the page's rep/def layer interpretation.
func (m *MiniBlock) Levels() *Levels { return m.levels }

// Decode decodes the given chunks, whose bytes are data (data[0] is the first byte of
// chunks[0]), into one Page21.
func (m *MiniBlock) Decode(chunks []Chunk, data []byte) (*Page21, error) {
	vals, err := NewBuilder(m.typ)
	if err != nil {
		return nil, err
	}
	p := &Page21{Vals: vals}
	if m.layout.GetRepCompression() != nil {
		p.Rep = []uint16{}
	}
	if m.layout.GetDefCompression() != nil {
		p.Def = []uint16{}
	}
	if len(chunks) == 0 {
		return p, nil
	}
	base := chunks[0].Off
	for i, c := range chunks {
		if c.Off < base || c.Off-base+c.Size > uint64(len(data)) {
			return nil, fmt.Errorf("chunk %d outside the bytes read: %w", i, ErrCorrupt)
		}
		if err := m.decodeChunk(p, data[c.Off-base:c.Off-base+c.Size], int(c.Items)); err != nil {
			return nil, fmt.Errorf("chunk at item %d: %w", c.FirstItem, err)
		}
	}
	if p.Rep == nil && p.Def == nil {
		p.NumEntries = vals.Len()
	}
	return p, nil
}

// chunkParts are the slices of one chunk.
type chunkParts struct {
	numLevels int
	rep, def  []byte
	bufs      [][]byte
}

// chunkCursor reads a chunk header field by field.
type chunkCursor struct {
	c   []byte
	pos int
}

func (cc *chunkCursor) word(size int) (int, error) {
	if cc.pos+size > len(cc.c) {
		return 0, fmt.Errorf("chunk header past %d bytes: %w", len(cc.c), ErrCorrupt)
	}
	var v int
	if size == 2 {
		v = int(binary.LittleEndian.Uint16(cc.c[cc.pos:]))
	} else {
		v = int(binary.LittleEndian.Uint32(cc.c[cc.pos:]))
	}
	cc.pos += size
	return v, nil
}

// take returns the next n bytes, starting at the next multiple of 8.
func (cc *chunkCursor) take(n int) ([]byte, error) {
	cc.pos = (cc.pos + 7) &^ 7
	if n < 0 || cc.pos+n > len(cc.c) {
		return nil, fmt.Errorf("chunk part of %d bytes at %d past %d: %w", n, cc.pos, len(cc.c), ErrCorrupt)
	}
	b := cc.c[cc.pos : cc.pos+n]
	cc.pos += n
	return b, nil
}

// splitChunk parses a chunk header and slices its parts (§5.6.3): u16 level count, u16 rep
// and def sizes when present, one u16 (2.2 large grammar: u32) size per value buffer, then
// each part padded to 8 bytes.
func (m *MiniBlock) splitChunk(c []byte) (chunkParts, error) {
	var cp chunkParts
	cc := &chunkCursor{c: c}
	var err error
	if cp.numLevels, err = cc.word(2); err != nil {
		return cp, err
	}
	repSize, defSize := 0, 0
	if m.layout.GetRepCompression() != nil {
		if repSize, err = cc.word(2); err != nil {
			return cp, err
		}
	}
	if m.layout.GetDefCompression() != nil {
		if defSize, err = cc.word(2); err != nil {
			return cp, err
		}
	}
	nb := m.layout.GetNumBuffers()
	if nb > 64 {
		return cp, fmt.Errorf("%d buffers per chunk: %w", nb, ErrCorrupt)
	}
	width := 2
	if m.layout.GetHasLargeChunk() {
		width = 4
	}
	var sizeBuf [64]int // nb <= 64: no allocation per chunk
	sizes := sizeBuf[:nb]
	for i := range sizes {
		if sizes[i], err = cc.word(width); err != nil {
			return cp, err
		}
	}
	if cp.rep, err = cc.take(repSize); err != nil {
		return cp, err
	}
	if cp.def, err = cc.take(defSize); err != nil {
		return cp, err
	}
	// The headers go into the page's reused slice (no allocation per chunk); cp.bufs is
	// valid until the next splitChunk on m, which every caller respects.
	cp.bufs = slices.Grow(m.bufs[:0], int(nb))
	m.bufs = cp.bufs
	for _, s := range sizes {
		b, err := cc.take(s)
		if err != nil {
			return cp, err
		}
		cp.bufs = append(cp.bufs, b)
	}
	return cp, nil
}

func (m *MiniBlock) decodeChunk(p *Page21, c []byte, items int) error {
	cp, err := m.splitChunk(c)
	if err != nil {
		return err
	}
	if p.Rep != nil {
		lv, err := decodeLevels(m.layout.GetRepCompression(), cp.rep, cp.numLevels)
		if err != nil {
			return fmt.Errorf("rep levels: %w", err)
		}
		p.Rep = append(p.Rep, lv...)
	}
	if p.Def != nil {
		lv, err := decodeLevels(m.layout.GetDefCompression(), cp.def, cp.numLevels)
		if err != nil {
			return fmt.Errorf("def levels: %w", err)
		}
		p.Def = append(p.Def, lv...)
	}
	if p.Rep != nil || p.Def != nil {
		p.NumEntries += cp.numLevels
	}
	if m.dict != nil {
		return m.gather(p.Vals, cp.bufs, items)
	}
	return m.vd.into(p.Vals, m.layout.GetValueCompression(), cp.bufs, items)
}

// gather decodes dictionary indices and appends the dictionary values they name.
func (m *MiniBlock) gather(vals *Builder, bufs [][]byte, items int) error {
	return m.gatherRange(vals, bufs, items, 0, items)
}

// gatherRange decodes the items dictionary indices of a chunk and appends the values named
// by indices [lo, hi).
func (m *MiniBlock) gatherRange(vals *Builder, bufs [][]byte, items, lo, hi int) error {
	if lo < 0 || hi < lo || hi > items {
		return fmt.Errorf("dictionary indices [%d, %d) of %d: %w", lo, hi, items, ErrCorrupt)
	}
	enc := m.layout.GetValueCompression()
	var raw []byte
	var bits int
	var err error
	if ib := enc.GetInlineBitpacking(); ib != nil && ib.GetValues() == nil && len(bufs) > 0 {
		// The usual index encoding: unpack into the page's reused index buffer.
		bits = int(ib.GetUncompressedBitsPerValue())
		raw, err = compress.AppendInlineBitpacked(m.idx[:0], bufs[0], bits, items)
		m.idx = raw
	} else {
		raw, bits, err = DecodeFixed(enc, bufs, items)
	}
	if err != nil {
		return fmt.Errorf("dictionary indices: %w", err)
	}
	w := bits / 8
	if bits%8 != 0 || len(raw) < hi*w {
		return fmt.Errorf("%d dictionary indices of %d bits in %d bytes: %w", items, bits, len(raw), ErrCorrupt)
	}
	return vals.appendGather(m.dict, &m.short, raw[lo*w:hi*w], bits, hi-lo)
}

// decodeLevels decodes n u16 levels.
func decodeLevels(enc *enc21pb.CompressiveEncoding, b []byte, n int) ([]uint16, error) {
	raw, bits, err := DecodeFixed(enc, [][]byte{b}, n)
	if err != nil {
		return nil, err
	}
	if bits != 16 || len(raw) < 2*n {
		return nil, fmt.Errorf("%d-bit levels: %w", bits, ErrCorrupt)
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return out, nil
}

// decodeDictionary decodes a mini-block dictionary block of n items of type t.
func decodeDictionary(enc *enc21pb.CompressiveEncoding, buf []byte, n uint64, t arrow.DataType) (*Builder, error) {
	if n > maxPageRows {
		return nil, fmt.Errorf("dictionary of %d items: %w", n, ErrCorrupt)
	}
	b, err := NewBuilder(t)
	if err != nil {
		return nil, err
	}
	for g := enc.GetGeneral(); g != nil; g = enc.GetGeneral() {
		out, err := decompressFirst(g, [][]byte{buf})
		if err != nil {
			return nil, err
		}
		buf, enc = out[0], g.GetValues()
	}
	switch b.Kind() {
	case KindVariable:
		if enc.GetVariable() == nil {
			return nil, NotSupported("dictionary block encoded as %s", encName(enc))
		}
		offs, data, err := decodeVariableBlock(buf, int(n))
		if err != nil {
			return nil, err
		}
		return b, b.AppendVariable(offs, data, 0, int(n), nil)
	case KindFixed:
		raw, bits, err := DecodeFixed(enc, [][]byte{buf}, int(n))
		if err != nil {
			return nil, err
		}
		if bits != b.Bits() {
			return nil, fmt.Errorf("%d-bit dictionary for %s: %w", bits, t, ErrCorrupt)
		}
		return b, b.AppendFixed(raw, 0, int(n), nil)
	}
	return nil, NotSupported("dictionary of type %s", t)
}
