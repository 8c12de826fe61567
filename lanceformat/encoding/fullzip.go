package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// fullZipReader walks the zipped buffer of a full-zip page (§5.6.4).
type fullZipReader struct {
	data               []byte
	pos                int
	ctrlBytes          int
	bitsDef            uint32
	fixedBytes, lenLen int
}

func (z *fullZipReader) take(n int) ([]byte, error) {
	if n < 0 || z.pos+n > len(z.data) {
		return nil, fmt.Errorf("full-zip entry of %d bytes at %d past %d: %w", n, z.pos, len(z.data), ErrCorrupt)
	}
	b := z.data[z.pos : z.pos+n]
	z.pos += n
	return b, nil
}

func (z *fullZipReader) uint(width int) (uint64, error) {
	b, err := z.take(width)
	if err != nil {
		return 0, err
	}
	var v uint64
	for i := width - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

// DecodeFullZip decodes a whole full-zip page of a leaf of type t from its zipped buffer.
func DecodeFullZip(fz *enc21pb.FullZipLayout, t arrow.DataType, data []byte) (*Page21, *Levels, error) {
	lv, err := NewLevels(fz.GetLayers())
	if err != nil {
		return nil, nil, err
	}
	z := &fullZipReader{data: data, bitsDef: fz.GetBitsDef()}
	switch c := fz.GetBitsRep() + fz.GetBitsDef(); {
	case c == 0:
	case c <= 8:
		z.ctrlBytes = 1
	case c <= 16:
		z.ctrlBytes = 2
	case c <= 32:
		z.ctrlBytes = 4
	default:
		return nil, nil, fmt.Errorf("control word of %d bits: %w", c, ErrCorrupt)
	}
	switch d := fz.GetDetails().(type) {
	case *enc21pb.FullZipLayout_BitsPerValue:
		if d.BitsPerValue%8 != 0 || d.BitsPerValue == 0 {
			return nil, nil, fmt.Errorf("full-zip values of %d bits: %w", d.BitsPerValue, ErrCorrupt)
		}
		z.fixedBytes = int(d.BitsPerValue / 8)
	case *enc21pb.FullZipLayout_BitsPerOffset:
		if d.BitsPerOffset != 32 && d.BitsPerOffset != 64 {
			return nil, nil, fmt.Errorf("full-zip lengths of %d bits: %w", d.BitsPerOffset, ErrCorrupt)
		}
		z.lenLen = int(d.BitsPerOffset / 8)
	default:
		return nil, nil, fmt.Errorf("full-zip layout without value width: %w", ErrCorrupt)
	}
	n := int(fz.GetNumItems())
	if n > len(data)+1 && z.ctrlBytes > 0 || n > maxPageRows {
		return nil, nil, fmt.Errorf("%d full-zip entries in %d bytes: %w", n, len(data), ErrCorrupt)
	}
	p, raws, err := z.walk(fz, lv, n)
	if err != nil {
		return nil, nil, err
	}
	if p.Vals, err = NewBuilder(t); err != nil {
		return nil, nil, err
	}
	if z.fixedBytes > 0 {
		err = fullZipFixed(p.Vals, fz.GetValueCompression(), raws, z.fixedBytes)
	} else if vps := fz.GetValueCompression().GetVariablePackedStruct(); vps != nil {
		err = variablePackedStructInto(p.Vals, vps, raws) // packed_struct.go
	} else {
		err = fullZipVariable(p.Vals, fz.GetValueCompression(), raws)
	}
	return p, lv, err
}

// walk splits the zipped buffer into levels and the raw bytes of each visible value (nil
// for null variable-width values).
func (z *fullZipReader) walk(fz *enc21pb.FullZipLayout, lv *Levels, n int) (*Page21, [][]byte, error) {
	p := &Page21{NumEntries: n}
	if fz.GetBitsRep() > 0 {
		p.Rep = make([]uint16, 0, n)
	}
	if fz.GetBitsDef() > 0 {
		p.Def = make([]uint16, 0, n)
	}
	var raws [][]byte
	for range n {
		var def uint64
		if z.ctrlBytes > 0 {
			w, err := z.uint(z.ctrlBytes)
			if err != nil {
				return nil, nil, err
			}
			def = w & (1<<z.bitsDef - 1)
			if p.Rep != nil {
				p.Rep = append(p.Rep, uint16(w>>z.bitsDef))
			}
			if p.Def != nil {
				p.Def = append(p.Def, uint16(def))
			}
		}
		if def > uint64(lv.MaxDef()) || !lv.Visible(uint16(def)) {
			continue
		}
		switch {
		case z.fixedBytes > 0:
			b, err := z.take(z.fixedBytes)
			if err != nil {
				return nil, nil, err
			}
			raws = append(raws, b)
		case def == 0:
			l, err := z.uint(z.lenLen)
			if err != nil {
				return nil, nil, err
			}
			if l > uint64(len(z.data)) {
				return nil, nil, fmt.Errorf("full-zip value of %d bytes: %w", l, ErrCorrupt)
			}
			b, err := z.take(int(l))
			if err != nil {
				return nil, nil, err
			}
			raws = append(raws, b)
		default:
			raws = append(raws, nil)
		}
	}
	return p, raws, nil
}

// fullZipFixed decodes fixed-width per-value bytes: Flat, or FixedSizeList (with an item
// validity prefix per value when has_validity).
func fullZipFixed(b *Builder, enc *enc21pb.CompressiveEncoding, raws [][]byte, width int) error {
	n := len(raws)
	fsl := enc.GetFixedSizeList()
	if fsl != nil && fsl.GetHasValidity() {
		dim := int(fsl.GetItemsPerValue())
		vb := (dim + 7) / 8
		if vb >= width {
			return fmt.Errorf("fixed-size list value of %d bytes cannot hold %d validity bytes: %w", width, vb, ErrCorrupt)
		}
		valid := make([]byte, bitutil.BytesForBits(int64(n*dim)))
		data := make([]byte, 0, n*(width-vb))
		for i, r := range raws {
			for k := range dim {
				if bitutil.BitIsSet(r[:vb], k) {
					bitutil.SetBit(valid, i*dim+k)
				}
			}
			data = append(data, r[vb:]...)
		}
		return DecodeValuesInto(b, enc, [][]byte{valid, data}, n)
	}
	data := make([]byte, 0, n*width)
	for _, r := range raws {
		data = append(data, r...)
	}
	return DecodeValuesInto(b, enc, [][]byte{data}, n)
}

// fullZipVariable decodes variable-width values, each possibly compressed on its own.
func fullZipVariable(b *Builder, enc *enc21pb.CompressiveEncoding, raws [][]byte) error {
	tabs := map[*enc21pb.Fsst]*compress.FSSTTable{} // symbol tables, parsed once per page
	var scratch []byte                              // FSST output, reused: AppendValue copies it
	var decode func(enc *enc21pb.CompressiveEncoding, v []byte, depth int) ([]byte, error)
	decode = func(enc *enc21pb.CompressiveEncoding, v []byte, depth int) ([]byte, error) {
		if depth > 4 {
			return nil, fmt.Errorf("value encoding nested too deeply: %w", ErrCorrupt)
		}
		switch e := enc.GetCompression().(type) {
		case *enc21pb.CompressiveEncoding_Variable:
			return v, nil
		case *enc21pb.CompressiveEncoding_General:
			out, err := compress.Decompress(compress.Scheme(e.General.GetCompression().GetScheme()), v, maxChunkBytes)
			if err != nil {
				return nil, err
			}
			return decode(e.General.GetValues(), out, depth+1)
		case *enc21pb.CompressiveEncoding_Fsst:
			tab, ok := tabs[e.Fsst]
			if !ok {
				var err error
				if tab, err = compress.ParseFSSTSymbolTable(e.Fsst.GetSymbolTable()); err != nil {
					return nil, err
				}
				tabs[e.Fsst] = tab
			}
			inner, err := decode(e.Fsst.GetValues(), v, depth+1)
			if err != nil {
				return nil, err
			}
			if depth > 0 { // an FSST inside an FSST: inner may be scratch itself
				return tab.Decompress(nil, inner)
			}
			out, err := tab.Decompress(scratch[:0], inner)
			scratch = out
			return out, err
		}
		return nil, NotSupported("full-zip variable-width encoding %s", encName(enc))
	}
	for _, r := range raws {
		if r == nil {
			if err := b.AppendValue(nil, true); err != nil { // a null; validity comes from def levels
				return err
			}
			continue
		}
		v, err := decode(enc, r, 0)
		if err != nil {
			return err
		}
		if err := b.AppendValue(v, true); err != nil {
			return err
		}
	}
	return nil
}
