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
	switch b.Kind() {
	case KindFixed:
		raw, bits, err := DecodeFixed(enc, bufs, n)
		if err != nil {
			return err
		}
		if bits != b.Bits() {
			return fmt.Errorf("%d-bit values for %s: %w", bits, b.Type(), ErrCorrupt)
		}
		return b.AppendFixed(raw, 0, n, nil)
	case KindVariable:
		offs, data, err := DecodeVariable(enc, bufs, n)
		if err != nil {
			return err
		}
		return b.AppendVariable(offs, data, 0, n, nil)
	case KindFSL:
		return decodeFSLInto(b, enc, bufs, n)
	case KindNull:
		b.AppendNulls(n)
		return nil
	}
	return NotSupported("mini-block values of type %s", b.Type())
}

// decodeFSLInto decodes a FixedSizeList compressive encoding: optional item validity, then
// the items.
func decodeFSLInto(b *Builder, enc *enc21pb.CompressiveEncoding, bufs [][]byte, n int) error {
	if g := enc.GetGeneral(); g != nil {
		inner, err := decompressFirst(g, bufs)
		if err != nil {
			return err
		}
		return decodeFSLInto(b, g.GetValues(), inner, n)
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
	if err := DecodeValuesInto(child, fsl.GetValues(), bufs, items); err != nil {
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
