package encoding

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
	"github.com/flightd/flightd/lanceformat/internal/lancepb/enc20pb"
)

// The 2.0 ArrayEncoding variants beyond the ones the default 2.0 strategy emits (§5.5.1).
// What pylance 14 writes, checked by writing files with it:
//
//   - Fsst{binary, symbol_table}: the 2.0 writer, for Utf8/Binary fields with metadata
//     "lance-encoding:compression" = "fsst" whose pages are not dictionary-encoded.
//   - PackedStruct: for struct fields with metadata "lance-encoding:packed" (packed_struct.go).
//   - Bitpacked, BitpackedForNonNeg, FixedSizeBinary, Constant: never written into 2.0
//     files by pylance 14 (they come from the pre-2025 experimental "2.1" strategy, which
//     wrote them in the 2.0 ArrayEncoding tree); Bitpacked, BitpackedForNonNeg and
//     FixedSizeBinary are still read by pylance, Constant is not. They are decoded here
//     after Lance's reader and tested with hand-built pages.

// decode20More decodes the variants decode20's switch leaves to it.
func decode20More(b *Builder, enc *enc20pb.ArrayEncoding, bufs [][]byte, n, depth int) error {
	switch e := enc.GetArrayEncoding().(type) {
	case *enc20pb.ArrayEncoding_Fsst:
		return decodeFsst20(b, e.Fsst, bufs, n, depth)
	case *enc20pb.ArrayEncoding_PackedStruct:
		return decodePackedStruct20(b, e.PackedStruct, bufs, n)
	case *enc20pb.ArrayEncoding_Bitpacked:
		bp := e.Bitpacked
		return decodeBitpacked20(b, bp.GetBuffer(), bufs, n, int(bp.GetCompressedBitsPerValue()),
			int(bp.GetUncompressedBitsPerValue()), bp.GetSigned())
	case *enc20pb.ArrayEncoding_BitpackedForNonNeg:
		return decodeBitpackedForNonNeg20(b, e.BitpackedForNonNeg, bufs, n)
	case *enc20pb.ArrayEncoding_Constant:
		return decodeConstant20(b, e.Constant.GetValue(), n)
	case *enc20pb.ArrayEncoding_FixedSizeBinary:
		return decodeFixedSizeBinary20(b, e.FixedSizeBinary, bufs, n, depth)
	}
	return NotSupported("2.0 encoding %s", encName(enc))
}

// pageBuffer20 returns page buffer buf.
func pageBuffer20(buf *enc20pb.Buffer, bufs [][]byte) ([]byte, error) {
	if buf.GetBufferType() != enc20pb.Buffer_page {
		return nil, NotSupported("2.0 %s buffers", buf.GetBufferType())
	}
	i := int(buf.GetBufferIndex())
	if i >= len(bufs) {
		return nil, fmt.Errorf("buffer %d of %d: %w", i, len(bufs), ErrCorrupt)
	}
	return bufs[i], nil
}

// decodeFsst20 decodes the inner Binary (FSST-compressed strings, nulls folded into its
// indices) and expands each string with the page's symbol table.
func decodeFsst20(b *Builder, f *enc20pb.Fsst, bufs [][]byte, n, depth int) error {
	if b.Kind() != KindVariable {
		return fmt.Errorf("fsst encoding for %s: %w", b.Type(), ErrCorrupt)
	}
	tab, err := compress.ParseFSSTSymbolTable(f.GetSymbolTable())
	if err != nil {
		return fmt.Errorf("fsst symbol table: %w", err)
	}
	raw, err := NewBuilder(arrow.BinaryTypes.LargeBinary)
	if err != nil {
		return err
	}
	if err := decode20(raw, f.GetBinary(), bufs, n, depth+1); err != nil {
		return fmt.Errorf("fsst strings: %w", err)
	}
	if raw.Len() != n {
		return fmt.Errorf("fsst strings decoded %d of %d rows: %w", raw.Len(), n, ErrCorrupt)
	}
	offs := make([]uint64, n+1)
	valid := make([]byte, bitutil.BytesForBits(int64(n)))
	for i := range n {
		offs[i+1] = uint64(raw.offsets[i+1] - raw.offsets[0])
		if raw.IsValid(i) {
			bitutil.SetBit(valid, i)
		}
	}
	outOffs, data, err := compress.DecodeFSSTStrings(tab, offs, raw.data[raw.offsets[0]:])
	if err != nil {
		return fmt.Errorf("fsst strings: %w", err)
	}
	return b.AppendVariable(outOffs, data, 0, n, valid)
}

// decodeBitpacked20 decodes Bitpacked: n values of w bits each, back to back LSB-first in
// one bit stream, widened to t bits (sign-extended from bit w-1 if signed).
func decodeBitpacked20(b *Builder, buf *enc20pb.Buffer, bufs [][]byte, n, w, t int, signed bool) error {
	if b.Kind() != KindFixed || b.Bits() != t || (t != 8 && t != 16 && t != 32 && t != 64) {
		return fmt.Errorf("bitpacked %d-bit values for %s: %w", t, b.Type(), ErrCorrupt)
	}
	if w < 1 || w > t {
		return fmt.Errorf("bitpacked width %d of %d bits: %w", w, t, ErrCorrupt)
	}
	src, err := pageBuffer20(buf, bufs)
	if err != nil {
		return err
	}
	if need := bitutil.BytesForBits(int64(n) * int64(w)); int64(len(src)) < need {
		return fmt.Errorf("bitpacked buffer of %d bytes, %d values of %d bits need %d: %w", len(src), n, w, need, ErrCorrupt)
	}
	out := make([]byte, n*t/8)
	for i := range n {
		v := readBits(src, i*w, w)
		if signed && w < 64 && v>>(w-1)&1 == 1 {
			v |= ^uint64(0) << w
		}
		putWord(out[i*t/8:], t, v)
	}
	return b.AppendFixed(out, 0, n, nil)
}

// readBits reads w (≤ 64) bits starting at bit pos of src, LSB-first.
func readBits(src []byte, pos, w int) uint64 {
	var v uint64
	for got := 0; got < w; {
		byteI, bitI := (pos+got)/8, (pos+got)%8
		take := min(8-bitI, w-got)
		chunk := uint64(src[byteI]>>bitI) & (1<<take - 1)
		v |= chunk << got
		got += take
	}
	return v
}

// putWord stores the low t bits of v little-endian in dst.
func putWord(dst []byte, t int, v uint64) {
	switch t {
	case 8:
		dst[0] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(dst, uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	default:
		binary.LittleEndian.PutUint64(dst, v)
	}
}

// decodeBitpackedForNonNeg20 decodes BitpackedForNonNeg: FastLanes blocks of 1024 values
// of the uncompressed width packed to compressed_bits_per_value bits each (128*w bytes a
// block); the last block is zero-padded to 1024 values.
func decodeBitpackedForNonNeg20(b *Builder, bp *enc20pb.BitpackedForNonNeg, bufs [][]byte, n int) error {
	t, w := int(bp.GetUncompressedBitsPerValue()), int(bp.GetCompressedBitsPerValue())
	if b.Kind() != KindFixed || b.Bits() != t || (t != 8 && t != 16 && t != 32 && t != 64) {
		return fmt.Errorf("bitpacked %d-bit values for %s: %w", t, b.Type(), ErrCorrupt)
	}
	if w < 0 || w > t {
		return fmt.Errorf("bitpacked width %d of %d bits: %w", w, t, ErrCorrupt)
	}
	src, err := pageBuffer20(bp.GetBuffer(), bufs)
	if err != nil {
		return err
	}
	blocks := (n + 1023) / 1024
	size := compress.FastLanesPackedSize(w)
	if int64(len(src)) < int64(blocks)*int64(size) {
		return fmt.Errorf("bitpacked buffer of %d bytes, %d blocks of %d bytes: %w", len(src), blocks, size, ErrCorrupt)
	}
	out := make([]byte, blocks*1024*t/8)
	for k := range blocks {
		if err := compress.FastLanesUnpack(t, w, src[k*size:(k+1)*size], out[k*1024*t/8:]); err != nil {
			return fmt.Errorf("bitpacked block %d: %w", k, err)
		}
	}
	return b.AppendFixed(out, 0, n, nil)
}

// decodeConstant20 decodes Constant: every one of the n values is value (pylance 14
// cannot read this variant in 2.0 files; it is decoded like 2.1's Constant).
func decodeConstant20(b *Builder, value []byte, n int) error {
	if n > maxPageRows {
		return fmt.Errorf("constant page of %d rows: %w", n, ErrCorrupt)
	}
	switch b.Kind() {
	case KindFixed:
		w := (b.Bits() + 7) / 8
		if b.Bits()%8 != 0 || len(value) != w {
			return fmt.Errorf("constant of %d bytes for %s: %w", len(value), b.Type(), ErrCorrupt)
		}
		out := make([]byte, n*w)
		for i := range n {
			copy(out[i*w:], value)
		}
		return b.AppendFixed(out, 0, n, nil)
	case KindVariable:
		return appendRepeated(b, value, n)
	case KindNull:
		b.AppendNulls(n)
		return nil
	}
	return NotSupported("2.0 constant of type %s", b.Type())
}

// decodeFixedSizeBinary20 decodes FixedSizeBinary: strings or binary values that all have
// byte_width bytes, stored as n*byte_width bytes without offsets (nulls, if any, come from
// an enclosing Nullable).
func decodeFixedSizeBinary20(b *Builder, f *enc20pb.FixedSizeBinary, bufs [][]byte, n, depth int) error {
	w := int(f.GetByteWidth())
	if b.Kind() != KindVariable || w <= 0 {
		return fmt.Errorf("fixed-size binary of width %d for %s: %w", w, b.Type(), ErrCorrupt)
	}
	if int64(n)*int64(w) > maxChunkBytes {
		return fmt.Errorf("fixed-size binary of %d x %d bytes: %w", n, w, ErrCorrupt)
	}
	bytes, err := NewBuilder(arrow.PrimitiveTypes.Uint8)
	if err != nil {
		return err
	}
	if err := decode20(bytes, f.GetBytes(), bufs, n*w, depth+1); err != nil {
		return fmt.Errorf("fixed-size binary bytes: %w", err)
	}
	if bytes.Len() != n*w {
		return fmt.Errorf("fixed-size binary decoded %d of %d bytes: %w", bytes.Len(), n*w, ErrCorrupt)
	}
	offs := make([]uint64, n+1)
	for i := range offs {
		offs[i] = uint64(i * w)
	}
	return b.AppendVariable(offs, bytes.fixed[:n*w], 0, n, nil)
}
