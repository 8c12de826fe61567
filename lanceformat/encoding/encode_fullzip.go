package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// fullZipWriter zips the levels and values of one leaf into a full-zip page (§5.6.4).
type fullZipWriter struct {
	l     *ShreddedLeaf
	v     *leafValues
	lv    *Levels
	fz    *enc21pb.FullZipLayout
	ctrl  int    // control word bytes
	width int    // fixed width: value bytes (without the FSL validity prefix)
	vb    int    // FSL item validity prefix bytes
	fsst  []byte // variable width: FSST symbol table when the values are FSST-compressed
	// general is the per-value General encoding when each value is its own frame.
	general *enc21pb.CompressiveEncoding
}

// encodeFullZip writes leaf l full-zip: per entry a control word, then the value (fixed
// width) or its length and bytes (variable width, valid values only).
func encodeFullZip(l *ShreddedLeaf, v *leafValues, opts LeafOptions) (*EncodedPage, error) {
	lv, err := NewLevels(l.Layers)
	if err != nil {
		return nil, err
	}
	z := &fullZipWriter{l: l, v: v, lv: lv, fz: &enc21pb.FullZipLayout{Layers: l.Layers,
		NumItems: uint32(l.NumEntries()), NumVisibleItems: uint32(len(l.Idx))}}
	gv, genc, err := perValueGeneral(l, v, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case gv != nil:
		z.v, z.general = gv, genc
	case v.kind == valVariable && opts.allowsFSST():
		// Long strings get FSST under the same rule as mini-block pages; each value is
		// compressed on its own and its stored length is the compressed length.
		c, err := chooseVariable(v)
		if err != nil {
			return nil, err
		}
		if vc, ok := c.(variableChunks); ok && vc.table != nil {
			z.v, z.fsst = vc.v, vc.table
		}
	}
	if err := z.describe(); err != nil {
		return nil, err
	}
	data, rowStarts := z.zip()
	if len(rowStarts) != l.Rows {
		return nil, fmt.Errorf("full-zip page: %d row starts for %d rows: %w", len(rowStarts), l.Rows, ErrCorrupt)
	}
	bufs := [][]byte{data}
	if l.Rep != nil || z.v.kind == valVariable {
		bufs = append(bufs, repIndexBytes(append(rowStarts, len(data))))
	}
	return &EncodedPage{Buffers: bufs, Rows: uint64(l.Rows),
		Layout: &enc21pb.PageLayout{Layout: &enc21pb.PageLayout_FullZipLayout{FullZipLayout: z.fz}}}, nil
}

// describe fills the layout's level widths, value width and value encoding.
func (z *fullZipWriter) describe() error {
	fz, v := z.fz, z.v
	if z.l.Rep != nil {
		fz.BitsRep = uint32(bitLen(uint64(z.l.MaxRep)))
	}
	if z.l.Def != nil {
		fz.BitsDef = uint32(bitLen(uint64(z.lv.MaxDef())))
	}
	switch c := fz.BitsRep + fz.BitsDef; {
	case c == 0:
	case c <= 8:
		z.ctrl = 1
	case c <= 16:
		z.ctrl = 2
	default:
		z.ctrl = 4
	}
	switch v.kind {
	case valVariable:
		fz.Details = &enc21pb.FullZipLayout_BitsPerOffset{BitsPerOffset: uint32(v.offsetBits)}
		fz.ValueCompression = variableChunks{v: v, table: z.fsst}.encoding()
		if z.general != nil {
			fz.ValueCompression = z.general
		}
	case valFSL:
		if v.itemValid != nil {
			z.vb = (v.dim + 7) / 8
		}
		z.width = v.dim * v.bits / 8
		fz.Details = &enc21pb.FullZipLayout_BitsPerValue{BitsPerValue: uint32(8 * (z.width + z.vb))}
		fz.ValueCompression = flatChunks{v}.encoding()
	default:
		if v.bits%8 != 0 {
			return NotSupported("full-zip pages of %d-bit values", v.bits)
		}
		z.width = v.bits / 8
		fz.Details = &enc21pb.FullZipLayout_BitsPerValue{BitsPerValue: uint32(v.bits)}
		fz.ValueCompression = flatEnc(v.bits)
	}
	return nil
}

// zip returns the zipped buffer and the byte offset where each top-level row starts.
func (z *fullZipWriter) zip() ([]byte, []int) {
	l, v := z.l, z.v
	var data []byte
	var rowStarts []int
	vis := 0
	for e := range l.NumEntries() {
		var rep, def uint16
		if l.Rep != nil {
			rep = l.Rep[e]
		}
		if l.Def != nil {
			def = l.Def[e]
		}
		if l.Rep == nil || rep == l.MaxRep {
			rowStarts = append(rowStarts, len(data))
		}
		word := uint64(rep)<<z.fz.BitsDef | uint64(def)
		for b := range z.ctrl {
			data = append(data, byte(word>>(8*b)))
		}
		if !z.lv.Visible(def) {
			continue
		}
		switch v.kind {
		case valVariable:
			if def == 0 { // null visible values have neither length nor bytes
				val := v.vars[vis]
				if v.offsetBits == 32 {
					data = binary.LittleEndian.AppendUint32(data, uint32(len(val)))
				} else {
					data = binary.LittleEndian.AppendUint64(data, uint64(len(val)))
				}
				data = append(data, val...)
			}
		case valFSL:
			if z.vb > 0 {
				data = append(data, sliceBits(v.itemValid, vis*v.dim, v.dim)...)
			}
			data = append(data, v.fixed[vis*z.width:(vis+1)*z.width]...)
		default:
			data = append(data, v.fixed[vis*z.width:(vis+1)*z.width]...)
		}
		vis++
	}
	return data, rowStarts
}

// repIndexBytes byte-packs the full-zip repetition index with the narrowest width that holds
// the largest offset.
func repIndexBytes(offs []int) []byte {
	last := uint64(offs[len(offs)-1])
	w := 8
	switch {
	case last <= 0xFF:
		w = 1
	case last <= 0xFFFF:
		w = 2
	case last <= 0xFFFFFFFF:
		w = 4
	}
	out := make([]byte, 0, w*len(offs))
	for _, o := range offs {
		for b := range w {
			out = append(out, byte(uint64(o)>>(8*b)))
		}
	}
	return out
}
