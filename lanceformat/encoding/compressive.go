package encoding

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc21pb"
)

// maxChunkBytes bounds what one decompressed mini-block buffer may grow to.
const maxChunkBytes = 64 << 20

// DecodeFixed decodes n fixed-width values from bufs (the buffers a mini-block chunk or a
// block gives the encoding) and returns them packed LE with their width in bits.
func DecodeFixed(enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) ([]byte, int, error) {
	return decodeFixed(enc, bufs, n, 0)
}

func decodeFixed(enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, depth int) ([]byte, int, error) {
	if depth > 8 {
		return nil, 0, fmt.Errorf("compressive encoding nested too deeply: %w", ErrCorrupt)
	}
	if len(bufs) == 0 {
		return nil, 0, fmt.Errorf("no buffers for %T: %w", enc.GetCompression(), ErrCorrupt)
	}
	switch e := enc.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_Flat:
		bits := e.Flat.GetBitsPerValue()
		if bits == 0 || bits > 1<<20 {
			return nil, 0, fmt.Errorf("flat of %d bits: %w", bits, ErrCorrupt)
		}
		buf, err := undoBufferCompression(e.Flat.GetData(), bufs[0], n, int(bits))
		if err != nil {
			return nil, 0, err
		}
		raw, err := compress.DecodeFlat(buf, bits, n)
		return raw, int(bits), err
	case *enc21pb.CompressiveEncoding_InlineBitpacking:
		t := int(e.InlineBitpacking.GetUncompressedBitsPerValue())
		if e.InlineBitpacking.GetValues() != nil {
			return nil, 0, NotSupported("compressed inline bit-packing")
		}
		raw, err := compress.DecodeInlineBitpacked(bufs[0], t, n)
		return raw, t, err
	case *enc21pb.CompressiveEncoding_OutOfLineBitpacking:
		t := int(e.OutOfLineBitpacking.GetUncompressedBitsPerValue())
		w := e.OutOfLineBitpacking.GetValues().GetFlat().GetBitsPerValue()
		if e.OutOfLineBitpacking.GetValues().GetFlat() == nil {
			return nil, 0, NotSupported("out-of-line bit-packing over %s", encName(e.OutOfLineBitpacking.GetValues()))
		}
		raw, err := compress.DecodeOutOfLineBitpacked(bufs[0], t, int(w), n)
		return raw, t, err
	case *enc21pb.CompressiveEncoding_Rle:
		return decodeRLE(e.Rle, bufs, n)
	case *enc21pb.CompressiveEncoding_ByteStreamSplit:
		t := int(e.ByteStreamSplit.GetValues().GetFlat().GetBitsPerValue())
		raw, err := compress.DecodeByteStreamSplit(bufs[0], t, n)
		return raw, t, err
	case *enc21pb.CompressiveEncoding_General:
		inner, err := decompressFirst(e.General, bufs)
		if err != nil {
			return nil, 0, err
		}
		return decodeFixed(e.General.GetValues(), inner, n, depth+1)
	case *enc21pb.CompressiveEncoding_Dictionary: // dictionary21.go
		return decodeDictionaryFixed(e.Dictionary, bufs, n, depth)
	case *enc21pb.CompressiveEncoding_Constant:
		return nil, 0, NotSupported("constant compressive encoding in a value buffer")
	case nil:
		return nil, 0, fmt.Errorf("missing compressive encoding: %w", ErrCorrupt)
	default:
		return nil, 0, NotSupported("fixed-width compressive encoding %s", encName(enc))
	}
}

// decodeRLE decodes Rle{values Flat(t), run_lengths Flat(8)}: in a mini-block chunk the
// two are separate buffers; as a block (levels) they share one buffer, prefixed by a u64
// giving the byte size of the values part.
func decodeRLE(r *enc21pb.Rle, bufs [][]byte, n int) ([]byte, int, error) {
	t := int(r.GetValues().GetFlat().GetBitsPerValue())
	if r.GetValues().GetFlat() == nil || r.GetRunLengths().GetFlat().GetBitsPerValue() != 8 {
		return nil, 0, NotSupported("rle with values %s", encName(r.GetValues()))
	}
	vals, lens := bufs[0], []byte(nil)
	if len(bufs) >= 2 {
		lens = bufs[1]
	} else {
		var err error
		if vals, lens, err = splitRLEBlock(bufs[0]); err != nil {
			return nil, 0, err
		}
	}
	raw, err := compress.DecodeRLE(vals, lens, t, n)
	return raw, t, err
}

// splitRLEBlock splits a single-buffer RLE block: u64 LE size of the values, the values,
// then the u8 run lengths.
func splitRLEBlock(b []byte) (vals, lens []byte, err error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("rle block of %d bytes: %w", len(b), ErrCorrupt)
	}
	vn := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	if vn > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("rle block values of %d bytes in %d: %w", vn, len(b), ErrCorrupt)
	}
	return b[8 : 8+vn], b[8+vn:], nil
}

// undoBufferCompression decompresses buf if c is set.
func undoBufferCompression(c *enc21pb.BufferCompression, buf []byte, n, bits int) ([]byte, error) {
	if c == nil {
		return buf, nil
	}
	limit := int(bitutil.BytesForBits(int64(n) * int64(bits)))
	if bits == 0 || limit <= 0 {
		limit = maxChunkBytes
	}
	return compress.Decompress(compress.Scheme(c.GetScheme()), buf, limit)
}

// decompressFirst undoes General compression: the first buffer is one frame.
func decompressFirst(g *enc21pb.General, bufs [][]byte) ([][]byte, error) {
	raw, err := compress.Decompress(compress.Scheme(g.GetCompression().GetScheme()), bufs[0], maxChunkBytes)
	if err != nil {
		return nil, fmt.Errorf("general %s: %w", compress.Scheme(g.GetCompression().GetScheme()), err)
	}
	out := append([][]byte{raw}, bufs[1:]...)
	return out, nil
}

// DecodeVariable decodes n variable-width values of a mini-block chunk and returns
// offsets (n+1, from 0) and bytes.
func DecodeVariable(enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) ([]uint64, []byte, error) {
	return decodeVariable(enc, bufs, n, 0)
}

func decodeVariable(enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, depth int) ([]uint64, []byte, error) {
	if depth > 8 {
		return nil, nil, fmt.Errorf("compressive encoding nested too deeply: %w", ErrCorrupt)
	}
	if len(bufs) == 0 {
		return nil, nil, fmt.Errorf("no buffers for %T: %w", enc.GetCompression(), ErrCorrupt)
	}
	switch e := enc.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_Variable:
		bits := e.Variable.GetOffsets().GetFlat().GetBitsPerValue()
		if bits != 32 && bits != 64 {
			return nil, nil, NotSupported("variable offsets %s of %d bits", encName(e.Variable.GetOffsets()), bits)
		}
		if e.Variable.GetValues() != nil {
			return nil, nil, NotSupported("variable with compressed values")
		}
		return compress.DecodeVariableMiniBlock(bufs[0], int(bits), n)
	case *enc21pb.CompressiveEncoding_Fsst:
		tab, err := compress.ParseFSSTSymbolTable(e.Fsst.GetSymbolTable())
		if err != nil {
			return nil, nil, err
		}
		offs, data, err := decodeVariable(e.Fsst.GetValues(), bufs, n, depth+1)
		if err != nil {
			return nil, nil, err
		}
		return compress.DecodeFSSTStrings(tab, offs, data)
	case *enc21pb.CompressiveEncoding_General:
		inner, err := decompressFirst(e.General, bufs)
		if err != nil {
			return nil, nil, err
		}
		return decodeVariable(e.General.GetValues(), inner, n, depth+1)
	case nil:
		return nil, nil, fmt.Errorf("missing compressive encoding: %w", ErrCorrupt)
	default:
		return nil, nil, NotSupported("variable-width compressive encoding %s", encName(enc))
	}
}

// DecodeValuesInto decodes n values of a mini-block chunk into b (all valid at the top
// level; nulls come from definition levels).
func DecodeValuesInto(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) error {
	var vd valueDecoder
	return vd.into(b, enc, bufs, n)
}

// valueDecoder decodes the values of a page's chunks, keeping what can be shared between
// chunks (parsed FSST symbol tables). The zero value is ready to use.
type valueDecoder struct {
	fsst map[*enc21pb.Fsst]*compress.FSSTTable
	offs []uint64 // reused offsets of a chunk's variable-width values
}

func (vd *valueDecoder) into(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) error {
	switch b.Kind() {
	case KindFixed:
		if ib := enc.GetInlineBitpacking(); ib != nil && ib.GetValues() == nil &&
			int(ib.GetUncompressedBitsPerValue()) == b.Bits() && len(bufs) > 0 {
			return b.appendInlineBitpacked(bufs[0], n)
		}
		if r := enc.GetRle(); r != nil && len(bufs) >= 2 && b.Bits()%8 == 0 &&
			int(r.GetValues().GetFlat().GetBitsPerValue()) == b.Bits() && r.GetValues().GetFlat().GetData() == nil &&
			r.GetRunLengths().GetFlat().GetBitsPerValue() == 8 && r.GetRunLengths().GetFlat().GetData() == nil {
			return b.appendRLE(bufs[0], bufs[1], n)
		}
		raw, bits, err := DecodeFixed(enc, bufs, n)
		if err != nil {
			return err
		}
		if bits != b.Bits() {
			return fmt.Errorf("%d-bit values for %s: %w", bits, b.Type(), ErrCorrupt)
		}
		return b.AppendFixed(raw, 0, n, nil)
	case KindVariable:
		return vd.variableInto(b, enc, bufs, n, 0)
	case KindFSL:
		return vd.fslInto(b, enc, bufs, n)
	case KindStruct: // packed structs (packed_struct.go)
		return packedStructValues(b, enc, bufs, n, 0)
	case KindNull:
		b.AppendNulls(n)
		return nil
	}
	return NotSupported("mini-block values of type %s", b.Type())
}

// variableInto decodes n variable-width values straight into b: FSST-compressed strings
// are expanded into b's data without an intermediate copy.
func (vd *valueDecoder) variableInto(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, depth int) error {
	return vd.variableRange(b, enc, bufs, n, 0, n, depth)
}

// variableRange is variableInto appending only values [lo, hi) of the n: FSST strings
// outside the range are not expanded at all.
func (vd *valueDecoder) variableRange(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, lo, hi, depth int) error {
	if lo < 0 || hi < lo || hi > n {
		return fmt.Errorf("values [%d, %d) of %d: %w", lo, hi, n, ErrCorrupt)
	}
	return vd.variableRuns(b, enc, bufs, n, func(f func(lo, hi int) error) error { return f(lo, hi) }, depth)
}

// variableRuns appends to b the values of each run [lo, hi) of the n that runs passes to
// its argument (runs in range, in order): offsets are decoded once, values copied or
// FSST-expanded run by run.
func (vd *valueDecoder) variableRuns(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int,
	runs func(func(lo, hi int) error) error, depth int) error {
	switch e := enc.GetCompression().(type) {
	case *enc21pb.CompressiveEncoding_Fsst:
		if len(bufs) == 0 || depth > 8 {
			return fmt.Errorf("fsst values without buffers or nested too deeply: %w", ErrCorrupt)
		}
		tab, err := vd.fsstTable(e.Fsst)
		if err != nil {
			return err
		}
		offs, data, err := vd.rawVariable(e.Fsst.GetValues(), bufs, n, depth+1)
		if err != nil {
			return err
		}
		if len(offs) != n+1 {
			return fmt.Errorf("%d offsets for %d values: %w", len(offs), n, ErrCorrupt)
		}
		return runs(func(lo, hi int) error { return b.appendFSST(tab, offs[lo:hi+1], data) })
	case *enc21pb.CompressiveEncoding_General:
		if len(bufs) == 0 || depth > 8 {
			return fmt.Errorf("general values without buffers or nested too deeply: %w", ErrCorrupt)
		}
		inner, err := decompressFirst(e.General, bufs)
		if err != nil {
			return err
		}
		return vd.variableRuns(b, e.General.GetValues(), inner, n, runs, depth+1)
	}
	if v := enc.GetVariable(); v != nil && v.GetValues() == nil && len(bufs) > 0 &&
		v.GetOffsets().GetFlat().GetBitsPerValue() == 32 {
		// the common chunk: no widened offsets
		return runs(func(lo, hi int) error { return b.appendVariable32(bufs[0], n, lo, hi) })
	}
	offs, data, err := vd.rawVariable(enc, bufs, n, depth)
	if err != nil {
		return err
	}
	return runs(func(lo, hi int) error { return b.AppendVariable(offs, data, lo, hi, nil) })
}

// appendFSST expands the FSST strings given by offs (one more than the strings) into b.
func (b *Builder) appendFSST(tab *compress.FSSTTable, offs []uint64, data []byte) error {
	n := len(offs) - 1
	if n < 0 || offs[0] > offs[n] {
		return fmt.Errorf("fsst offsets out of order: %w", ErrCorrupt)
	}
	// With room for the worst case (every code a longest symbol) the exact size is not
	// needed; otherwise size the growth exactly.
	size := int(offs[n]-offs[0]) * compress.FSSTMaxSymbolLen
	if cap(b.data)-len(b.data) < size+compress.FSSTMaxSymbolLen {
		var err error
		if size, err = tab.DecodedSize(offs, data); err != nil {
			return err
		}
	}
	var err error
	nd, n0 := len(b.data), len(b.offsets)
	b.data = b.growData(size+compress.FSSTMaxSymbolLen, n)
	if b.offsets, b.data, err = tab.AppendStrings(b.offsets, b.data, offs, data, size); err != nil {
		b.offsets, b.data = b.offsets[:n0], b.data[:nd]
		return err
	}
	b.valid.appendN(true, n)
	b.n += n
	return nil
}

// rawVariable is decodeVariable decoding plain Variable chunks' offsets into the
// decoder's reused buffer; the result is valid until the next call.
func (vd *valueDecoder) rawVariable(enc *enc21pb.CompressiveEncoding, bufs [][]byte, n, depth int) ([]uint64, []byte, error) {
	v := enc.GetVariable()
	bits := v.GetOffsets().GetFlat().GetBitsPerValue()
	if v == nil || v.GetValues() != nil || (bits != 32 && bits != 64) || len(bufs) == 0 {
		return decodeVariable(enc, bufs, n, depth)
	}
	offs, data, err := compress.DecodeVariableMiniBlockInto(vd.offs, bufs[0], int(bits), n)
	if err == nil {
		vd.offs = offs
	}
	return offs, data, err
}

// fsstTable returns the parsed symbol table of f, parsing it once per decoder.
func (vd *valueDecoder) fsstTable(f *enc21pb.Fsst) (*compress.FSSTTable, error) {
	if t, ok := vd.fsst[f]; ok {
		return t, nil
	}
	t, err := compress.ParseFSSTSymbolTable(f.GetSymbolTable())
	if err != nil {
		return nil, err
	}
	if vd.fsst == nil {
		vd.fsst = map[*enc21pb.Fsst]*compress.FSSTTable{}
	}
	vd.fsst[f] = t
	return t, nil
}

// fslInto decodes a FixedSizeList compressive encoding: optional item validity, then
// the items.
func (vd *valueDecoder) fslInto(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) error {
	if g := enc.GetGeneral(); g != nil {
		inner, err := decompressFirst(g, bufs)
		if err != nil {
			return err
		}
		return vd.fslInto(b, g.GetValues(), inner, n)
	}
	fsl := enc.GetFixedSizeList()
	if fsl == nil {
		return NotSupported("fixed-size list values encoded as %s", encName(enc))
	}
	if int(fsl.GetItemsPerValue()) != b.Dim() {
		return fmt.Errorf("fixed-size list of %d items for %s: %w", fsl.GetItemsPerValue(), b.Type(), ErrCorrupt)
	}
	items := n * b.Dim()
	var valid []byte
	if fsl.GetHasValidity() {
		if len(bufs) < 2 || int64(len(bufs[0])) < bitutil.BytesForBits(int64(items)) {
			return fmt.Errorf("fixed-size list item validity missing: %w", ErrCorrupt)
		}
		valid, bufs = bufs[0], bufs[1:]
	}
	child := b.Child(0)
	start := child.Len()
	if err := vd.into(child, fsl.GetValues(), bufs, items); err != nil {
		return err
	}
	if valid != nil {
		child.andValidityFrom(start, valid)
	}
	return b.AppendSlots(n, nil, 0)
}

// andValidityFrom clears validity of slots start+i where bit i of bm is 0.
func (b *Builder) andValidityFrom(start int, bm []byte) {
	for i := start; i < b.n; i++ {
		if !bitutil.BitIsSet(bm, i-start) && b.valid.isValid(i) {
			b.valid.materialize()
			bitutil.ClearBit(b.valid.bits, i)
			b.valid.nulls++
		}
	}
}

func decodeVariableBlock(buf []byte, n int) ([]uint64, []byte, error) {
	return compress.DecodeVariableBlock(buf, n)
}

// appendRLE decodes n values of a mini-block RLE chunk (run values of b's width, u8 run
// lengths) straight into b's values, without an intermediate buffer.
func (b *Builder) appendRLE(vals, lens []byte, n int) error {
	fixed, err := compress.AppendRLEWidth(b.fixed, vals, lens, b.bits, 8, n)
	return b.appendedValid(fixed, err, n)
}

// appendInlineBitpacked decodes n inline bit-packed values straight into b's values.
func (b *Builder) appendInlineBitpacked(data []byte, n int) error {
	fixed, err := compress.AppendInlineBitpacked(b.fixed, data, b.bits, n)
	return b.appendedValid(fixed, err, n)
}

// appendedValid takes fixed, b's values with n valid values a decoder appended, unless the
// decoder failed with err.
func (b *Builder) appendedValid(fixed []byte, err error, n int) error {
	if err != nil {
		return err
	}
	b.fixed = fixed
	b.valid.appendN(true, n)
	b.n += n
	return nil
}
