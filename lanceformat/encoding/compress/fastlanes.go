package compress

import (
	"encoding/binary"
	"fmt"
)

// FastLanesBlockValues is the number of values in one FastLanes block.
const FastLanesBlockValues = 1024

// flOrder is the FastLanes row permutation ("FL_ORDER").
var flOrder = [8]int{0, 4, 2, 6, 1, 5, 3, 7}

// flIndex returns the position in the 1024-value block of the value that
// FastLanes stores at (row, lane).
func flIndex(row, lane int) int {
	return flOrder[row/8]*16 + (row%8)*128 + lane
}

// FastLanesPackedSize returns the number of bytes one packed 1024-value block
// of width w occupies: 1024*w/8 = 128*w, independent of the word width.
func FastLanesPackedSize(w int) int { return 128 * w }

func checkFastLanes(t, w int) error {
	if err := checkWordBits("fastlanes", t); err != nil {
		return err
	}
	if w < 0 || w > t {
		return corruptf("fastlanes: packed width %d out of range [0,%d]", w, t)
	}
	return nil
}

// FastLanesUnpack unpacks one block of 1024 values of uncompressed width t
// bits (8, 16, 32 or 64) that were packed to w bits each in the FastLanes
// transposed layout Lance uses (a fork of spiraldb/fastlanes). packed must hold
// at least FastLanesPackedSize(w) bytes (the first 1024*w/t little-endian
// words of width t are read); out must hold at least 1024*t/8 bytes and
// receives the 1024 values as little-endian words of width t.
//
// Layout: with LANES = 1024/t, lane l owns the bit stream formed by the words
// packed[LANES*k + l] for k in [0,w); the value at (row, lane) occupies
// stream bits [row*w, row*w+w) and belongs at index
// FL_ORDER[row/8]*16 + (row%8)*128 + lane of the block.
func FastLanesUnpack(t, w int, packed []byte, out []byte) error {
	if err := checkFastLanes(t, w); err != nil {
		return err
	}
	bw := t / 8
	if len(packed) < FastLanesPackedSize(w) {
		return corruptf("fastlanes: packed block has %d bytes, need %d (t=%d, w=%d)", len(packed), FastLanesPackedSize(w), t, w)
	}
	if len(out) < FastLanesBlockValues*bw {
		return fmt.Errorf("fastlanes: output has %d bytes, need %d", len(out), FastLanesBlockValues*bw)
	}
	if w == 0 {
		clear(out[:FastLanesBlockValues*bw])
		return nil
	}
	if unpackSpecialised(t, w, packed, out) {
		return nil
	}
	unpackGeneric(t, w, packed, out)
	return nil
}

// unpackGeneric is FastLanesUnpack for any alignment of packed and out (0 < w <= t, sizes
// checked by the caller): the words are loaded into a scratch block, unpacked row by row
// and stored back as little-endian words.
func unpackGeneric(t, w int, packed, out []byte) {
	bw := t / 8
	lanes := FastLanesBlockValues / t
	var words [FastLanesBlockValues]uint64
	getWords(words[:lanes*w], packed, bw)
	mask := widthMask(w)
	shift, low := log2Word(t), t-1 // t is a power of two: avoid divisions
	var vals [FastLanesBlockValues]uint64
	for row, pos := 0, 0; row < t; row, pos = row+1, pos+w {
		k, s := pos>>shift, pos&low
		base := flRowBase[row]
		cur := words[lanes*k : lanes*k+lanes]
		if s+w <= t {
			for lane, x := range cur {
				vals[base+lane] = (x >> uint(s)) & mask
			}
			continue
		}
		next := words[lanes*(k+1) : lanes*(k+1)+lanes]
		for lane, x := range cur {
			vals[base+lane] = (x>>uint(s) | next[lane]<<uint(t-s)) & mask
		}
	}
	putWords(out, vals[:], bw)
}

// flRowBase[row] is flIndex(row, 0).
var flRowBase = func() (b [64]int) {
	for row := range b {
		b[row] = flIndex(row, 0)
	}
	return b
}()

// getWords loads len(dst) little-endian words of bw bytes from in.
func getWords(dst []uint64, in []byte, bw int) {
	switch bw {
	case 1:
		in = in[:len(dst)]
		for i := range dst {
			dst[i] = uint64(in[i])
		}
	case 2:
		in = in[:2*len(dst)]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint16(in[2*i:]))
		}
	case 4:
		in = in[:4*len(dst)]
		for i := range dst {
			dst[i] = uint64(binary.LittleEndian.Uint32(in[4*i:]))
		}
	default:
		in = in[:8*len(dst)]
		for i := range dst {
			dst[i] = binary.LittleEndian.Uint64(in[8*i:])
		}
	}
}

// putWords stores vals as little-endian words of bw bytes into out.
func putWords(out []byte, vals []uint64, bw int) {
	switch bw {
	case 1:
		out = out[:len(vals)]
		for i, v := range vals {
			out[i] = byte(v)
		}
	case 2:
		out = out[:2*len(vals)]
		for i, v := range vals {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		}
	case 4:
		out = out[:4*len(vals)]
		for i, v := range vals {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
		}
	default:
		out = out[:8*len(vals)]
		for i, v := range vals {
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
	}
}

// log2Word returns log2(t) for t in {8,16,32,64}.
func log2Word(t int) int {
	switch t {
	case 8:
		return 3
	case 16:
		return 4
	case 32:
		return 5
	}
	return 6
}

// FastLanesPack packs one block of 1024 values (little-endian words of width
// t bits in values, at least 1024*t/8 bytes) to w bits each in the FastLanes
// layout described at FastLanesUnpack, appending FastLanesPackedSize(w) bytes
// to dst and returning the extended slice. Bits above w are discarded, so the
// caller must choose w >= the bit width of every value.
func FastLanesPack(dst []byte, t, w int, values []byte) ([]byte, error) {
	if err := checkFastLanes(t, w); err != nil {
		return dst, err
	}
	bw := t / 8
	if len(values) < FastLanesBlockValues*bw {
		return dst, fmt.Errorf("fastlanes: input has %d bytes, need %d", len(values), FastLanesBlockValues*bw)
	}
	lanes := FastLanesBlockValues / t
	var words [FastLanesBlockValues]uint64
	mask := widthMask(w)
	shift, low := log2Word(t), t-1
	for lane := 0; lane < lanes && w > 0; lane++ {
		for row, pos := 0, 0; row < t; row, pos = row+1, pos+w {
			v := getWord(values, flIndex(row, lane), bw) & mask
			k, s := pos>>shift, pos&low
			words[lanes*k+lane] |= v << uint(s)
			if s+w > t {
				words[lanes*(k+1)+lane] |= v >> uint(t-s)
			}
		}
	}
	start := len(dst)
	dst = append(dst, make([]byte, FastLanesPackedSize(w))...)
	out := dst[start:]
	for i := range lanes * w {
		putWord(out, i, bw, words[i])
	}
	return dst, nil
}
