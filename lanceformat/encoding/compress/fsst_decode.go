package compress

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// fsstDecodeTable is an FSST symbol table laid out for bulk decoding: each code's symbol
// as one little-endian word (written whole, then the output advances by its length) and
// its length, 0 for codes without a symbol.
type fsstDecodeTable struct {
	sym  [256]uint64
	slen [256]uint8
}

func newFSSTDecodeTable(symbols [][]byte) *fsstDecodeTable {
	ft := &fsstDecodeTable{}
	for c, s := range symbols {
		if c >= FSSTEscape || len(s) < 1 || len(s) > FSSTMaxSymbolLen {
			break
		}
		var w [8]byte
		copy(w[:], s)
		ft.sym[c], ft.slen[c] = binary.LittleEndian.Uint64(w[:]), uint8(len(s))
	}
	return ft
}

func (t *FSSTTable) decodeTable() *fsstDecodeTable {
	if t.fast != nil {
		return t.fast
	}
	return newFSSTDecodeTable(t.Symbols)
}

// size returns the decoded size of src, a run of whole compressed strings, or an error
// for codes without a symbol.
func (ft *fsstDecodeTable) size(src []byte) (int, error) {
	n := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == FSSTEscape {
			i++
			n++
			continue
		}
		l := ft.slen[c]
		if l == 0 {
			return 0, corruptf("fsst: code %d has no symbol", c)
		}
		n += int(l)
	}
	return n, nil
}

// DecodedSize returns the number of bytes the strings given by offsets (n+1 values
// indexing data) decode to, checking their codes; the caller can size its buffer with it
// and pass it to AppendStrings. Strings spanning a bad range are reported by AppendStrings.
func (t *FSSTTable) DecodedSize(offsets []uint64, data []byte) (int, error) {
	if len(offsets) == 0 {
		return 0, corruptf("fsst: empty offsets")
	}
	lo, hi := offsets[0], offsets[len(offsets)-1]
	if lo > hi || hi > uint64(len(data)) {
		return 0, corruptf("fsst: strings span [%d,%d) of %d bytes", lo, hi, len(data))
	}
	if !t.EncoderSwitch {
		return int(hi - lo), nil
	}
	return t.decodeTable().size(data[lo:hi])
}

// AppendStrings FSST-decodes the strings given by offsets (n+1 non-decreasing values
// indexing data) and appends their bytes to dst and, after each string, the new length of
// dst to ends. It decodes in bulk: a first pass sizes the output (skipped when size is not
// negative: the DecodedSize of the same strings, or any upper bound such as
// FSSTMaxSymbolLen times their compressed bytes), the second writes each symbol as one
// 8-byte word. With EncoderSwitch false the bytes are copied through.
func (t *FSSTTable) AppendStrings(ends []int64, dst []byte, offsets []uint64, data []byte, size int) ([]int64, []byte, error) {
	if len(offsets) == 0 {
		return ends, dst, corruptf("fsst: empty offsets")
	}
	n := len(offsets) - 1
	lo, hi := offsets[0], offsets[n]
	if lo > hi || hi > uint64(len(data)) {
		return ends, dst, corruptf("fsst: strings span [%d,%d) of %d bytes", lo, hi, len(data))
	}
	ends = growInt64(ends, n)
	if !t.EncoderSwitch {
		base := int64(len(dst)) - int64(lo)
		for i := 1; i <= n; i++ {
			if offsets[i] < offsets[i-1] {
				return ends, dst, corruptf("fsst: offset %d (%d) below the previous (%d)", i, offsets[i], offsets[i-1])
			}
			ends = append(ends, base+int64(offsets[i]))
		}
		return ends, append(dst, data[lo:hi]...), nil
	}
	ft := t.decodeTable()
	var err error
	if size < 0 {
		if size, err = ft.size(data[lo:hi]); err != nil {
			return ends, dst, err
		}
	}
	start := len(dst)
	dst = growBytes(dst, size+FSSTMaxSymbolLen)
	out := dst[start : start+size+FSSTMaxSymbolLen]
	if FSSTMaxSymbolLen*(hi-lo) <= uint64(size) {
		// Room for the worst case: decode the whole run in one loop.
		ends, pos, err := ft.decodeRun(ends, out, int64(start), offsets, data)
		if err != nil {
			return ends, dst[:start], err
		}
		return ends, dst[:start+pos], nil
	}
	pos := 0
	for i := 1; i <= n; i++ {
		s, e := offsets[i-1], offsets[i]
		if s > e {
			return ends, dst[:start], corruptf("fsst: offset %d (%d) below the previous (%d)", i, e, s)
		}
		if pos, err = ft.decodeOne(out, pos, size, data[s:e]); err != nil {
			return ends, dst[:start], fmt.Errorf("fsst: string %d: %w", i-1, err)
		}
		ends = append(ends, int64(start+pos))
	}
	return ends, dst[:start+pos], nil
}

// decodeOne decodes one compressed string into out at pos and returns the new position.
// out has FSSTMaxSymbolLen bytes of slack after limit, the decoded size of the run.
func (ft *fsstDecodeTable) decodeOne(out []byte, pos, limit int, src []byte) (int, error) {
	if pos+FSSTMaxSymbolLen*len(src) <= limit {
		// Even 8 bytes per input byte stays within limit: no per-code check needed.
		for i := 0; i < len(src); i++ {
			c := src[i]
			if c == FSSTEscape {
				i++
				if i >= len(src) {
					return pos, corruptf("fsst: escape code at end of string")
				}
				out[pos] = src[i]
				pos++
				continue
			}
			l := ft.slen[c]
			if l == 0 {
				return pos, corruptf("fsst: code %d has no symbol", c)
			}
			binary.LittleEndian.PutUint64(out[pos:pos+8], ft.sym[c])
			pos += int(l)
		}
		return pos, nil
	}
	for i := 0; i < len(src); i++ {
		if pos > limit {
			return pos, corruptf("fsst: output past the %d bytes sized", limit)
		}
		c := src[i]
		if c == FSSTEscape {
			i++
			if i >= len(src) {
				return pos, corruptf("fsst: escape code at end of string")
			}
			out[pos] = src[i]
			pos++
			continue
		}
		l := ft.slen[c]
		if l == 0 {
			return pos, corruptf("fsst: code %d has no symbol", c)
		}
		binary.LittleEndian.PutUint64(out[pos:pos+8], ft.sym[c])
		pos += int(l)
	}
	if pos > limit {
		return pos, corruptf("fsst: output past the %d bytes sized", limit)
	}
	return pos, nil
}

// decodeRun decodes the strings given by offsets (non-decreasing, within data) into out,
// which has room for FSSTMaxSymbolLen bytes per compressed byte plus that much slack, in
// one loop over the run's codes, and appends base plus each string's end to ends. It
// returns the decoded size. A code without a symbol writes nothing and is reported once
// the run is done.
//
// The room makes every store safe without a check: a code moves the output by at most
// FSSTMaxSymbolLen (an escape by 1 for 2 input bytes), so before each code pos is at most
// FSSTMaxSymbolLen times the bytes consumed, and the 8-byte store ends inside out. Codes
// are taken four at a time while none of them is an escape.
func (ft *fsstDecodeTable) decodeRun(ends []int64, out []byte, base int64, offsets []uint64, data []byte) ([]int64, int, error) {
	n0 := len(ends)
	lo, hi := offsets[0], offsets[len(offsets)-1]
	if lo > hi || hi > uint64(len(data)) || uint64(len(out)) < FSSTMaxSymbolLen*(hi-lo+1) {
		return ends[:n0], 0, corruptf("fsst: strings span [%d,%d) of %d bytes", lo, hi, len(data))
	}
	ends = growInt64(ends, len(offsets)-1)
	strEnds := ends[n0 : n0+len(offsets)-1]
	dst := unsafe.Pointer(unsafe.SliceData(out))
	src := unsafe.Pointer(unsafe.SliceData(data))
	pos, i := 0, int(lo)
	var shortest uint8 = FSSTMaxSymbolLen
	for k := 1; k < len(offsets); k++ {
		e := int(offsets[k])
		if e < i || e > int(hi) { // (past the last: a later offset decreases; caught before reading)
			return ends[:n0], 0, corruptf("fsst: offset %d (%d) below the previous (%d) or past the last (%d)", k, e, offsets[k-1], hi)
		}
		for i < e {
			if i+4 <= e {
				w := *(*uint32)(unsafe.Add(src, i))
				if (w^0xFFFFFFFF-0x01010101)&^(w^0xFFFFFFFF)&0x80808080 == 0 { // no escape among the four
					c0, c1, c2, c3 := uint8(w), uint8(w>>8), uint8(w>>16), uint8(w>>24)
					l0, l1, l2, l3 := ft.slen[c0], ft.slen[c1], ft.slen[c2], ft.slen[c3]
					shortest = min(shortest, l0, l1, l2, l3)
					*(*uint64)(unsafe.Add(dst, pos)) = ft.sym[c0]
					pos += int(l0)
					*(*uint64)(unsafe.Add(dst, pos)) = ft.sym[c1]
					pos += int(l1)
					*(*uint64)(unsafe.Add(dst, pos)) = ft.sym[c2]
					pos += int(l2)
					*(*uint64)(unsafe.Add(dst, pos)) = ft.sym[c3]
					pos += int(l3)
					i += 4
					continue
				}
			}
			c := *(*uint8)(unsafe.Add(src, i))
			i++
			if c == FSSTEscape {
				if i >= e {
					return ends[:n0], 0, fmt.Errorf("fsst: string %d: %w", k-1, corruptf("fsst: escape code at end of string"))
				}
				*(*uint8)(unsafe.Add(dst, pos)) = *(*uint8)(unsafe.Add(src, i))
				pos++
				i++
				continue
			}
			l := ft.slen[c]
			shortest = min(shortest, l)
			*(*uint64)(unsafe.Add(dst, pos)) = ft.sym[c]
			pos += int(l)
		}
		strEnds[k-1] = base + int64(pos)
	}
	if shortest == 0 {
		return ends[:n0], 0, ft.firstBadCode(data[lo:hi])
	}
	return ends[:n0+len(strEnds)], pos, nil
}

// firstBadCode returns the error for the first code of src (whole strings) that has no
// symbol.
func (ft *fsstDecodeTable) firstBadCode(src []byte) error {
	_, err := ft.size(src)
	if err == nil {
		err = corruptf("fsst: code without a symbol")
	}
	return err
}

// growBytes returns b with room for n more bytes, len unchanged.
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n))
	copy(nb, b)
	return nb
}

// growInt64 returns s with room for n more values, len unchanged.
func growInt64(s []int64, n int) []int64 {
	if cap(s)-len(s) >= n {
		return s
	}
	ns := make([]int64, len(s), max(2*cap(s), len(s)+n))
	copy(ns, s)
	return ns
}
