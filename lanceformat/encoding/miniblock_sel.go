package encoding

import (
	"fmt"
	"sync"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// Selective decoding: late materialization reads a batch's filter columns first and the
// other columns only at the rows the filter kept. DecodeSelInto decodes the chunks holding
// those rows but copies (or looks up, or expands) only the selected values: fixed-width
// values and dictionary indices are picked before they are appended or gathered, and
// variable-width (plain or FSST) values are cut run by run. Other values (booleans, RLE,
// fixed-size lists, packed structs) are decoded chunk by chunk and the selected runs copied.

// pickPool holds *[]byte scratch buffers of picked fixed-width values.
var pickPool sync.Pool

// DecodeSelInto appends the page-local items rows (ascending, unique) of a mini-block page
// without repetition or definition levels to dst, a builder of the page's type. chunks
// must hold every row and data is their bytes (data[0] is the first byte of chunks[0]).
func (m *MiniBlock) DecodeSelInto(dst *Builder, chunks []Chunk, data []byte, rows []uint64) error {
	if m.layout.GetRepCompression() != nil || m.layout.GetDefCompression() != nil {
		return fmt.Errorf("selective decode of a mini-block page with levels: %w", ErrCorrupt)
	}
	if len(rows) == 0 {
		return nil
	}
	if len(chunks) == 0 {
		return fmt.Errorf("no chunks for %d selected items: %w", len(rows), ErrCorrupt)
	}
	base, r := chunks[0].Off, 0
	for i, c := range chunks {
		end := c.FirstItem + c.Items
		k := r
		for k < len(rows) && rows[k] < end {
			k++
		}
		if k == r {
			continue
		}
		sub := rows[r:k]
		r = k
		if sub[0] < c.FirstItem || c.Off < base || c.Off-base+c.Size > uint64(len(data)) {
			return fmt.Errorf("chunk %d outside the bytes read or the rows: %w", i, ErrCorrupt)
		}
		if err := m.selChunk(dst, data[c.Off-base:c.Off-base+c.Size], c, sub); err != nil {
			return fmt.Errorf("chunk at item %d: %w", c.FirstItem, err)
		}
	}
	if r != len(rows) {
		return fmt.Errorf("item %d past the chunks: %w", rows[r], ErrCorrupt)
	}
	return nil
}

// selChunk appends the chunk-relative items sub (absolute page items, ascending) of chunk c.
func (m *MiniBlock) selChunk(dst *Builder, bytes []byte, c Chunk, sub []uint64) error {
	items := int(c.Items)
	enc := m.layout.GetValueCompression()
	switch {
	case m.dict != nil:
		cp, err := m.splitChunk(bytes)
		if err != nil {
			return err
		}
		raw, bits, err := m.fixedValues(enc, cp.bufs, items)
		if err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		return m.pickInto(raw, bits, items, c.FirstItem, sub, func(sel []byte) error {
			return dst.appendGather(m.dict, &m.short, sel, bits, len(sub))
		})
	case dst.Kind() == KindFixed && dst.Bits()%8 == 0 && enc.GetRle() == nil:
		cp, err := m.splitChunk(bytes)
		if err != nil {
			return err
		}
		raw, bits, err := m.fixedValues(enc, cp.bufs, items)
		if err != nil {
			return err
		}
		if bits != dst.Bits() {
			return fmt.Errorf("%d-bit values for %s: %w", bits, dst.Type(), ErrCorrupt)
		}
		return m.pickInto(raw, bits, items, c.FirstItem, sub, func(sel []byte) error {
			return dst.AppendFixed(sel, 0, len(sub), nil)
		})
	case dst.Kind() == KindVariable && dst.dict == nil:
		cp, err := m.splitChunk(bytes)
		if err != nil {
			return err
		}
		return m.vd.variableSel(dst, enc, cp.bufs, items, c.FirstItem, sub, 0)
	}
	vals, err := NewBuilder(m.typ)
	if err != nil {
		return err
	}
	defer vals.Release()
	vals.Reserve(items)
	if err := m.decodeChunk(&Page21{Vals: vals}, bytes, items); err != nil {
		return err
	}
	return eachRun(sub, c.FirstItem, func(lo, hi int) error { return dst.AppendFrom(vals, lo, hi) })
}

// fixedValues unpacks a chunk's items fixed-width values (or dictionary indices); the
// usual inline bit-packing goes into the page's reused buffer.
func (m *MiniBlock) fixedValues(enc *enc21pb.CompressiveEncoding, bufs [][]byte, items int) ([]byte, int, error) {
	if ib := enc.GetInlineBitpacking(); ib != nil && ib.GetValues() == nil && len(bufs) > 0 {
		bits := int(ib.GetUncompressedBitsPerValue())
		raw, err := compress.AppendInlineBitpacked(m.idx[:0], bufs[0], bits, items)
		if err != nil {
			return nil, 0, err
		}
		m.idx = raw
		return raw, bits, nil
	}
	return DecodeFixed(enc, bufs, items)
}

// pickInto copies the bits-wide values of items sub (page items; the chunk starts at
// first) out of raw into a scratch buffer and hands it to use.
func (m *MiniBlock) pickInto(raw []byte, bits, items int, first uint64, sub []uint64, use func([]byte) error) error {
	w := bits / 8
	if bits%8 != 0 || w == 0 || len(raw) < items*w || int(sub[len(sub)-1]-first) >= items {
		return fmt.Errorf("%d values of %d bits in %d bytes: %w", items, bits, len(raw), ErrCorrupt)
	}
	p, _ := pickPool.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	defer pickPool.Put(p)
	if cap(*p) < len(sub)*w {
		*p = make([]byte, len(sub)*w)
	}
	sel := (*p)[:len(sub)*w]
	switch w {
	case 1:
		for k, row := range sub {
			sel[k] = raw[row-first]
		}
	case 2:
		for k, row := range sub {
			o := int(row-first) * 2
			*(*[2]byte)(sel[k*2:]) = *(*[2]byte)(raw[o:])
		}
	case 4:
		for k, row := range sub {
			o := int(row-first) * 4
			*(*[4]byte)(sel[k*4:]) = *(*[4]byte)(raw[o:])
		}
	case 8:
		for k, row := range sub {
			o := int(row-first) * 8
			*(*[8]byte)(sel[k*8:]) = *(*[8]byte)(raw[o:])
		}
	default:
		for k, row := range sub {
			o := int(row-first) * w
			copy(sel[k*w:k*w+w], raw[o:o+w])
		}
	}
	return use(sel)
}

// variableSel is variableRange for the items sub (page items; the chunk starts at first):
// offsets are decoded once, values copied or FSST-expanded run by run.
func (vd *valueDecoder) variableSel(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int,
	first uint64, sub []uint64, depth int) error {
	if int(sub[len(sub)-1]-first) >= n {
		return fmt.Errorf("item %d of %d: %w", sub[len(sub)-1]-first, n, ErrCorrupt)
	}
	return vd.variableRuns(b, enc, bufs, n, func(f func(lo, hi int) error) error { return eachRun(sub, first, f) }, depth)
}

// eachRun calls f with each run [lo, hi) of consecutive items of sub, relative to first.
func eachRun(sub []uint64, first uint64, f func(lo, hi int) error) error {
	for i := 0; i < len(sub); {
		j := i + 1
		for j < len(sub) && sub[j] == sub[j-1]+1 {
			j++
		}
		if err := f(int(sub[i]-first), int(sub[j-1]+1-first)); err != nil {
			return err
		}
		i = j
	}
	return nil
}
