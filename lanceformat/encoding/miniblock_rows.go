package encoding

import "fmt"

// DecodeRowsInto appends items [lo, hi) of a mini-block page without repetition or
// definition levels (every item is one valid row) straight to dst, a builder of the
// page's type. chunks are the chunks holding those items and data their bytes (data[0] is
// the first byte of chunks[0]). Chunks wholly inside the range are decoded into dst
// directly; only a chunk cut by lo or hi goes through a scratch builder.
func (m *MiniBlock) DecodeRowsInto(dst *Builder, chunks []Chunk, data []byte, lo, hi uint64) error {
	if m.layout.GetRepCompression() != nil || m.layout.GetDefCompression() != nil {
		return fmt.Errorf("direct decode of a mini-block page with levels: %w", ErrCorrupt)
	}
	if lo > hi {
		return fmt.Errorf("items [%d, %d): %w", lo, hi, ErrCorrupt)
	}
	if len(chunks) == 0 {
		if lo == hi {
			return nil
		}
		return fmt.Errorf("no chunks for items [%d, %d): %w", lo, hi, ErrCorrupt)
	}
	if chunks[0].FirstItem > lo || chunks[len(chunks)-1].FirstItem+chunks[len(chunks)-1].Items < hi {
		return fmt.Errorf("chunks do not cover items [%d, %d): %w", lo, hi, ErrCorrupt)
	}
	base := chunks[0].Off
	p := &Page21{Vals: dst}
	for i, c := range chunks {
		if c.Off < base || c.Off-base+c.Size > uint64(len(data)) {
			return fmt.Errorf("chunk %d outside the bytes read: %w", i, ErrCorrupt)
		}
		bytes := data[c.Off-base : c.Off-base+c.Size]
		cLo, cHi := max(lo, c.FirstItem), min(hi, c.FirstItem+c.Items)
		if cLo >= cHi {
			continue
		}
		if cLo == c.FirstItem && cHi == c.FirstItem+c.Items {
			if err := m.decodeChunk(p, bytes, int(c.Items)); err != nil {
				return fmt.Errorf("chunk at item %d: %w", c.FirstItem, err)
			}
			continue
		}
		if err := m.decodePartial(dst, bytes, c, cLo, cHi); err != nil {
			return fmt.Errorf("chunk at item %d: %w", c.FirstItem, err)
		}
	}
	return nil
}

// decodePartial appends items [lo, hi) of chunk c to dst. Dictionary indices and
// variable-width values are cut before they are expanded (a Take of one row expands one
// string, not the chunk's); other values go through a scratch builder.
func (m *MiniBlock) decodePartial(dst *Builder, bytes []byte, c Chunk, lo, hi uint64) error {
	a, z := int(lo-c.FirstItem), int(hi-c.FirstItem)
	if m.dict != nil || (dst.kind == KindVariable && dst.dict == nil) {
		cp, err := m.splitChunk(bytes)
		if err != nil {
			return err
		}
		if m.dict != nil {
			return m.gatherRange(dst, cp.bufs, int(c.Items), a, z)
		}
		return m.vd.variableRange(dst, m.layout.GetValueCompression(), cp.bufs, int(c.Items), a, z, 0)
	}
	vals, err := NewBuilder(m.typ)
	if err != nil {
		return err
	}
	vals.Reserve(int(c.Items))
	if err := m.decodeChunk(&Page21{Vals: vals}, bytes, int(c.Items)); err != nil {
		return err
	}
	return dst.AppendFrom(vals, a, z)
}
