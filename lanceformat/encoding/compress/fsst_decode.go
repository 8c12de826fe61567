package compress

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// fsstDecodeTable is an FSST symbol table laid out for bulk decoding: each code's symbol
// as one little-endian word (written whole, then the output advances by its length) and
// its length, 0 for codes without a symbol.
type fsstDecodeTable struct {
	sym  [256]uint64
	slen [256]uint8
	full bool // every code but the escape has a symbol: no code can be bad
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
		ft.full = c == FSSTEscape-1
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
// returns the decoded size. Codes without a symbol are looked for first, in a pass of
// their own, and only when the table has such codes (Lance's tables for large pages have
// all 255 symbols).
//
// The room makes every store safe without a check: a code moves the output by at most
// FSSTMaxSymbolLen (an escape by 1 for 2 input bytes), so before each code pos is at most
// FSSTMaxSymbolLen times the bytes consumed, and the 8-byte store ends inside out.
func (ft *fsstDecodeTable) decodeRun(ends []int64, out []byte, base int64, offsets []uint64, data []byte) ([]int64, int, error) {
	n0, n := len(ends), len(offsets)-1
	lo, hi := offsets[0], offsets[n]
	if lo > hi || hi > uint64(len(data)) || uint64(len(out)) < FSSTMaxSymbolLen*(hi-lo+1) {
		return ends[:n0], 0, corruptf("fsst: strings span [%d,%d) of %d bytes", lo, hi, len(data))
	}
	if k := firstDecrease(offsets); k > 0 {
		return ends[:n0], 0, corruptf("fsst: offset %d (%d) below the previous (%d)", k, offsets[k], offsets[k-1])
	}
	if n == 0 {
		return ends, 0, nil
	}
	if !ft.full {
		if _, err := ft.size(data[lo:hi]); err != nil {
			return ends[:n0], 0, err
		}
	}
	ends = growInt64(ends, n)
	r := fsstRun{ft: ft, out: out, data: data[:hi], offsets: offsets, ends: ends[n0 : n0+n], base: base, i: int(lo)}
	if err := r.run(); err != nil {
		return ends[:n0], 0, err
	}
	return ends[:n0+n], r.pos, nil
}

// fsstRun is the state of decodeRun: the output position pos, the input position i and
// the number k of strings ended. at[j] is the output position before code j of the last
// block of eight and at[8] the current one, so a string ending at input e <= i (and after
// the block's start) ends at output at[8-(i-e)].
type fsstRun struct {
	ft        *fsstDecodeTable
	out, data []byte // data ends at the run's end
	offsets   []uint64
	ends      []int64
	base      int64
	pos, i, k int
	at        [16]int
}

// run decodes the codes from i on and records the ends of the strings from k on: eight
// codes at a time while the next eight bytes hold no escape and lie within the run, else
// one code (or escape and literal). Strings ending inside a block are recorded after it.
// The block is unrolled by hand (the compiler neither unrolls the loop nor inlines a helper
// this size, and either costs a fifth of the decode time).
func (r *fsstRun) run() error {
	out, data, ft, at := r.out, r.data, r.ft, &r.at
	dst, src := unsafe.Pointer(unsafe.SliceData(out)), unsafe.Pointer(unsafe.SliceData(data))
	sym, slen := &ft.sym, &ft.slen
	pos, i, k := r.pos, r.i, r.k
	e := int(r.offsets[k+1])
	for {
		// Record the next string's end without a branch on whether it ended (strings
		// average about one block, so that branch is a coin toss): the end is written
		// either way and k only moves on when it was real; the rare further ends in the
		// same block take the loop.
		r.ends[k] = r.base + int64(at[(8-(i-e))&15])
		k += 1 - int(uint(i-e)>>(bits.UintSize-1))
		for {
			if k == len(r.ends) {
				r.pos, r.i, r.k = pos, i, k
				return nil
			}
			if e = int(r.offsets[k+1]); e > i {
				break
			}
			r.ends[k] = r.base + int64(at[(8-(i-e))&15])
			k++
		}
		if i+8 <= len(data) {
			w := *(*uint64)(unsafe.Add(src, i))
			if t := ^w; (t-0x0101010101010101)&^t&0x8080808080808080 == 0 { // no escape among the eight
				at[0] = pos
				l0 := slen[uint8(w)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w)]
				pos += int(l0)
				at[1] = pos
				l1 := slen[uint8(w>>8)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>8)]
				pos += int(l1)
				at[2] = pos
				l2 := slen[uint8(w>>16)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>16)]
				pos += int(l2)
				at[3] = pos
				l3 := slen[uint8(w>>24)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>24)]
				pos += int(l3)
				at[4] = pos
				l4 := slen[uint8(w>>32)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>32)]
				pos += int(l4)
				at[5] = pos
				l5 := slen[uint8(w>>40)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>40)]
				pos += int(l5)
				at[6] = pos
				l6 := slen[uint8(w>>48)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>48)]
				pos += int(l6)
				at[7] = pos
				l7 := slen[uint8(w>>56)]
				*(*uint64)(unsafe.Add(dst, pos)) = sym[uint8(w>>56)]
				pos += int(l7)
				at[8] = pos
				i += 8
				continue
			}
		}
		if c := data[i]; c != FSSTEscape {
			l := slen[c]
			*(*uint64)(unsafe.Add(dst, pos)) = sym[c]
			pos += int(l)
			i++
		} else if i+1 < e {
			out[pos] = data[i+1]
			pos++
			i += 2
		} else {
			return corruptf("fsst: string %d: escape code at end of string", k)
		}
		at[8] = pos
	}
}

// firstDecrease returns the first k with offsets[k] < offsets[k-1], or 0 if there is none.
// The first pass only accumulates borrows, so it runs without a branch per offset.
func firstDecrease(offsets []uint64) int {
	var borrow uint64
	for k := 1; k < len(offsets); k++ {
		_, b := bits.Sub64(offsets[k], offsets[k-1], 0)
		borrow |= b
	}
	if borrow == 0 {
		return 0
	}
	for k := 1; k < len(offsets); k++ {
		if offsets[k] < offsets[k-1] {
			return k
		}
	}
	return 0
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
