package compress

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Variable-width values (CompressiveEncoding variant 2).
//
// Decoders return offsets as n+1 uint64 values starting at 0 and a data slice
// such that value i is data[offsets[i]:offsets[i+1]]. data aliases the input.

// variablePad is the byte Lance pads mini-block variable chunks with ('H').
const variablePad = 0x48

func checkOffsetBits(what string, offsetBits int) error {
	if offsetBits != 32 && offsetBits != 64 {
		return corruptf("%s: offsets width %d bits, want 32 or 64", what, offsetBits)
	}
	return nil
}

// readOffsets reads n+1 offsets of width offsetBits from raw, checks that they
// are non-decreasing and that the last is <= limit, and returns them rebased
// to start at 0 together with the first (absolute) offset.
func readOffsets(what string, raw []byte, offsetBits, n int, limit uint64) ([]uint64, uint64, error) {
	return readOffsetsInto(nil, what, raw, offsetBits, n, limit)
}

// readOffsetsInto is readOffsets writing into dst's memory when it is large enough.
func readOffsetsInto(dst []uint64, what string, raw []byte, offsetBits, n int, limit uint64) ([]uint64, uint64, error) {
	bw := offsetBits / 8
	if uint64(n)+1 > uint64(len(raw)/bw) {
		return nil, 0, corruptf("%s: %d values need %d offsets of %d bits, have %d bytes", what, n, n+1, offsetBits, len(raw))
	}
	offs := dst[:0]
	if cap(offs) < n+1 {
		offs = make([]uint64, n+1)
	}
	offs = offs[:n+1]
	first := getWord(raw, 0, bw)
	var bad bool
	switch bw {
	case 4:
		bad = rebase32(offs, raw[:4*(n+1)], uint32(first))
	default:
		prev := first
		for i := range offs {
			o := getWord(raw, i, bw)
			bad = bad || o < prev
			offs[i] = o - first
			prev = o
		}
	}
	if bad {
		for i := 1; i <= n; i++ {
			if o, p := getWord(raw, i, bw), getWord(raw, i-1, bw); o < p {
				return nil, 0, corruptf("%s: offset %d (%d) is below offset %d (%d)", what, i, o, i-1, p)
			}
		}
	}
	// Non-decreasing: the last offset bounds them all.
	if last := first + offs[n]; last > limit {
		return nil, 0, corruptf("%s: offset %d (%d) past end of buffer (%d)", what, n, last, limit)
	}
	return offs, first, nil
}

// rebase32 sets offs[i] to the i-th little-endian uint32 of in minus first (in holds
// len(offs) of them) and reports whether any is below the one before it (first is the
// one before the 0th). Loads are unaligned word loads; the decrease test accumulates
// the sign of each difference instead of branching.
func rebase32(offs []uint64, in []byte, first uint32) bool {
	in = in[:4*len(offs)]
	p := unsafe.Pointer(unsafe.SliceData(in))
	prev, neg := int64(first), int64(0)
	for i := range offs {
		o := int64(*(*uint32)(unsafe.Add(p, 4*i))) // every platform flightd builds for is little-endian
		neg |= o - prev
		offs[i] = uint64(o - int64(first))
		prev = o
	}
	return neg < 0
}

// DecodeVariableMiniBlock decodes one mini-block chunk buffer of the Variable
// encoding: n+1 offsets of offsetBits (32 or 64, from
// Variable.offsets.flat.bits_per_value) bits, then the value bytes, then
// padding. Offsets are relative to the start of buf (the first normally
// equals (n+1)*offsetBits/8). The returned offsets start at 0.
func DecodeVariableMiniBlock(buf []byte, offsetBits int, n int) (offsets []uint64, data []byte, err error) {
	return DecodeVariableMiniBlockInto(nil, buf, offsetBits, n)
}

// DecodeVariableMiniBlockInto is DecodeVariableMiniBlock returning the offsets in dst's
// memory when it has room for them (a decoder reuses one buffer across chunks).
func DecodeVariableMiniBlockInto(dst []uint64, buf []byte, offsetBits int, n int) (offsets []uint64, data []byte, err error) {
	if err := checkOffsetBits("variable mini-block", offsetBits); err != nil {
		return nil, nil, err
	}
	if err := checkCount("variable mini-block", n); err != nil {
		return nil, nil, err
	}
	offs, first, err := readOffsetsInto(dst, "variable mini-block", buf, offsetBits, n, uint64(len(buf)))
	if err != nil {
		return nil, nil, err
	}
	return offs, buf[first : first+offs[n]], nil
}

// EncodeVariableMiniBlock encodes values as one Variable mini-block chunk
// buffer with offsetBits (32 or 64) offsets, padded with 0x48 to a multiple of
// offsetBits/8 bytes, as Lance's BinaryMiniBlockEncoder does. The padding is
// part of the returned buffer (and of the chunk's buffer size).
func EncodeVariableMiniBlock(values [][]byte, offsetBits int) ([]byte, error) {
	if err := checkOffsetBits("variable mini-block", offsetBits); err != nil {
		return nil, err
	}
	bw := offsetBits / 8
	total := (len(values) + 1) * bw
	for _, v := range values {
		total += len(v)
	}
	if offsetBits == 32 && uint64(total) > math.MaxUint32 {
		return nil, corruptf("variable mini-block: %d bytes do not fit 32-bit offsets", total)
	}
	padded := (total + bw - 1) / bw * bw
	out := make([]byte, padded)
	pos := uint64((len(values) + 1) * bw)
	putWord(out, 0, bw, pos)
	for i, v := range values {
		copy(out[pos:], v)
		pos += uint64(len(v))
		putWord(out, i+1, bw, pos)
	}
	for i := total; i < padded; i++ {
		out[i] = variablePad
	}
	return out, nil
}

// DecodeVariableBlock decodes the Variable encoding used as a block
// compressor (mini-block dictionaries): "u32 bits (=32) | u32 bytes_start |
// offsets | bytes" or "u64 64 | u64 bytes_start | offsets | bytes", where the
// offsets region runs up to bytes_start and the offsets index the bytes
// region. It also accepts Lance's older layout "u8 bits | u32/u64 count |
// u32/u64 bytes_start | offsets | bytes", recognised (as Lance does) by a
// non-zero byte among bytes 1..3. n is the number of values
// (num_dictionary_items); the offsets region must hold at least n+1 offsets.
func DecodeVariableBlock(buf []byte, n int) (offsets []uint64, data []byte, err error) {
	if err := checkCount("variable block", n); err != nil {
		return nil, nil, err
	}
	bits, bytesStart, offStart, err := variableBlockHeader(buf)
	if err != nil {
		return nil, nil, err
	}
	if bytesStart < uint64(offStart) || bytesStart > uint64(len(buf)) {
		return nil, nil, corruptf("variable block: bytes start %d outside [%d,%d]", bytesStart, offStart, len(buf))
	}
	region := buf[bytesStart:]
	offs, first, err := readOffsets("variable block", buf[offStart:bytesStart], bits, n, uint64(len(region)))
	if err != nil {
		return nil, nil, err
	}
	return offs, region[first : first+offs[n]], nil
}

// variableBlockHeader parses the header of a variable block and returns the
// offset width, the start of the bytes region and the start of the offsets.
func variableBlockHeader(buf []byte) (bits int, bytesStart uint64, offStart int, err error) {
	if len(buf) < 8 {
		return 0, 0, 0, corruptf("variable block: %d bytes is too short for a header", len(buf))
	}
	if buf[1] != 0 || buf[2] != 0 || buf[3] != 0 { // old layout
		switch buf[0] {
		case 32:
			if len(buf) < 9 {
				return 0, 0, 0, corruptf("variable block: old header truncated")
			}
			return 32, uint64(binary.LittleEndian.Uint32(buf[5:9])), 9, nil
		case 64:
			if len(buf) < 17 {
				return 0, 0, 0, corruptf("variable block: old header truncated")
			}
			return 64, binary.LittleEndian.Uint64(buf[9:17]), 17, nil
		}
		return 0, 0, 0, corruptf("variable block: old header offsets width %d", buf[0])
	}
	switch binary.LittleEndian.Uint32(buf[0:4]) {
	case 32:
		return 32, uint64(binary.LittleEndian.Uint32(buf[4:8])), 8, nil
	case 64:
		if len(buf) < 16 {
			return 0, 0, 0, corruptf("variable block: header truncated")
		}
		return 64, binary.LittleEndian.Uint64(buf[8:16]), 16, nil
	}
	return 0, 0, 0, corruptf("variable block: offsets width %d", binary.LittleEndian.Uint32(buf[0:4]))
}

// EncodeVariableBlock encodes values in the current variable block layout
// with offsetBits (32 or 64) offsets starting at 0, as Lance's
// VariableEncoder does.
func EncodeVariableBlock(values [][]byte, offsetBits int) ([]byte, error) {
	if err := checkOffsetBits("variable block", offsetBits); err != nil {
		return nil, err
	}
	bw := offsetBits / 8
	hdr := 2 * bw
	start := hdr + (len(values)+1)*bw
	total := start
	for _, v := range values {
		total += len(v)
	}
	if offsetBits == 32 && uint64(total) > math.MaxUint32 {
		return nil, corruptf("variable block: %d bytes do not fit 32-bit offsets", total)
	}
	out := make([]byte, total)
	putWord(out, 0, bw, uint64(offsetBits))
	putWord(out, 1, bw, uint64(start))
	pos := uint64(0)
	offs := out[hdr:]
	putWord(offs, 0, bw, 0)
	for i, v := range values {
		copy(out[start+int(pos):], v)
		pos += uint64(len(v))
		putWord(offs, i+1, bw, pos)
	}
	return out, nil
}
