package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// DecodeConstant decodes a 2.1 AllNullLayout or a 2.2 ConstantLayout page (same field
// number, the 2.2 message is a superset) of rows top-level rows. Buffers: an optional
// value block first (variable-width constants), then rep and def levels (§5.6.5, §5.7).
func DecodeConstant(cl *enc21pb.ConstantLayout, t arrow.DataType, bufs [][]byte, rows uint64) (*Page21, *Levels, error) {
	lv, err := NewLevels(cl.GetLayers())
	if err != nil {
		return nil, nil, err
	}
	if rows > maxPageRows {
		return nil, nil, fmt.Errorf("page of %d rows: %w", rows, ErrCorrupt)
	}
	vals, err := NewBuilder(t)
	if err != nil {
		return nil, nil, err
	}
	value := cl.InlineValue // nil: every value is null
	if len(bufs)%2 == 1 {
		if value, err = constantBlockValue(bufs[0]); err != nil {
			return nil, nil, err
		}
		bufs = bufs[1:]
	}
	p := &Page21{Vals: vals}
	if len(bufs) == 2 {
		if p.Rep, err = constantLevels(cl.GetRepCompression(), bufs[0], cl.GetNumRepValues()); err != nil {
			return nil, nil, fmt.Errorf("rep levels: %w", err)
		}
		if p.Def, err = constantLevels(cl.GetDefCompression(), bufs[1], cl.GetNumDefValues()); err != nil {
			return nil, nil, fmt.Errorf("def levels: %w", err)
		}
	} else if len(bufs) != 0 {
		return nil, nil, fmt.Errorf("constant layout with %d level buffers: %w", len(bufs), ErrCorrupt)
	}
	p.NumEntries = max(len(p.Rep), len(p.Def))
	if p.Rep == nil && p.Def == nil {
		p.NumEntries = int(rows)
		if value == nil {
			if lv.MaxDef() == 0 || lv.MaxRep() > 0 {
				return nil, nil, fmt.Errorf("all-null page without levels needs a nullable leaf: %w", ErrCorrupt)
			}
			p.Def = make([]uint16, rows)
			for i := range p.Def {
				p.Def[i] = 1 // null at the leaf layer
			}
		}
	}
	nv := lv.CountVisible(p.Def, p.NumEntries)
	if value == nil {
		vals.AppendNulls(nv)
		return p, lv, nil
	}
	return p, lv, appendRepeated(vals, value, nv)
}

// constantLevels decodes one level buffer: raw u16 without compression; empty means absent.
func constantLevels(enc *enc21pb.CompressiveEncoding, b []byte, n uint64) ([]uint16, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if enc == nil {
		if len(b)%2 != 0 {
			return nil, fmt.Errorf("raw levels of %d bytes: %w", len(b), ErrCorrupt)
		}
		out := make([]uint16, len(b)/2)
		for i := range out {
			out[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return out, nil
	}
	if n > maxPageRows {
		return nil, fmt.Errorf("%d levels: %w", n, ErrCorrupt)
	}
	return decodeLevels(enc, b, int(n))
}

// constantBlockValue extracts the single value of a constant variable-width page. pylance
// 14 writes it as a serialized block: "u32 number of buffers (2) | u32 size of each buffer |
// buffers", the buffers being two offsets (u32 or u64) and the value bytes.
func constantBlockValue(b []byte) ([]byte, error) {
	if len(b) < 12 || binary.LittleEndian.Uint32(b) != 2 {
		return nil, NotSupported("constant value block of %d bytes", len(b))
	}
	offSize, dataSize := uint64(binary.LittleEndian.Uint32(b[4:])), uint64(binary.LittleEndian.Uint32(b[8:]))
	if 12+offSize+dataSize != uint64(len(b)) {
		return nil, fmt.Errorf("constant value block sizes %d+%d in %d bytes: %w", offSize, dataSize, len(b), ErrCorrupt)
	}
	offs, data := b[12:12+offSize], b[12+offSize:]
	var s, e uint64
	switch offSize {
	case 8:
		s, e = uint64(binary.LittleEndian.Uint32(offs)), uint64(binary.LittleEndian.Uint32(offs[4:]))
	case 16:
		s, e = binary.LittleEndian.Uint64(offs), binary.LittleEndian.Uint64(offs[8:])
	default:
		return nil, NotSupported("constant value block with %d offset bytes", offSize)
	}
	if s > e || e > uint64(len(data)) {
		return nil, fmt.Errorf("constant value [%d, %d) in %d bytes: %w", s, e, len(data), ErrCorrupt)
	}
	return data[s:e], nil
}

// appendRepeated appends n copies of one value given by its raw bytes.
func appendRepeated(b *Builder, v []byte, n int) error {
	switch b.Kind() {
	case KindVariable:
		for range n {
			if err := b.AppendValue(v, true); err != nil {
				return err
			}
		}
		return nil
	case KindFixed:
		w := (b.Bits() + 7) / 8
		if len(v) < w {
			return fmt.Errorf("constant of %d bytes for %s: %w", len(v), b.Type(), ErrCorrupt)
		}
		for range n {
			if err := b.AppendFixed(v[:w], 0, 1, nil); err != nil {
				return err
			}
		}
		return nil
	}
	return NotSupported("constant values of type %s", b.Type())
}
