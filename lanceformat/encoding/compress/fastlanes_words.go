package compress

import "unsafe"

// word is an unsigned FastLanes word type.
type word interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// wordsOf views b as little-endian words of W (every platform flightd builds for is
// little-endian), or reports false if b is not aligned for W.
func wordsOf[W word](b []byte) ([]W, bool) {
	var w W
	size := int(unsafe.Sizeof(w))
	if len(b) < size {
		return nil, false
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(w) != 0 {
		return nil, false
	}
	return unsafe.Slice((*W)(p), len(b)/size), true
}

// unpackCast runs unpackWords over packed and out viewed as words of W; it reports false,
// doing nothing, when either is not aligned for W (the caller unpacks generically).
func unpackCast[W word](w int, packed, out []byte) bool {
	var z W
	t := 8 * int(unsafe.Sizeof(z))
	p, ok1 := wordsOf[W](packed[:FastLanesPackedSize(w)])
	o, ok2 := wordsOf[W](out[:FastLanesBlockValues*t/8])
	if !ok1 || !ok2 {
		return false
	}
	unpackWords(w, p, o)
	return true
}

// unpackWords unpacks one FastLanes block of 1024 values packed to w bits (0 < w <= t,
// t the width of W) from packed (128*w bytes as words of W) into out (1024 words): value
// (row, lane) sits in lane's bit stream at bits [row*w, row*w+w) and belongs at out index
// flRowBase[row]+lane, so each row fills one contiguous run of out.
func unpackWords[W word](w int, packed, out []W) {
	var z W
	t := 8 * int(unsafe.Sizeof(z))
	lanes := FastLanesBlockValues / t
	mask := W(widthMask(w))
	shift, low := log2Word(t), t-1
	for row, pos := 0, 0; row < t; row, pos = row+1, pos+w {
		k, s := pos>>shift, pos&low
		base := flRowBase[row]
		o := out[base : base+lanes]
		cur := packed[lanes*k : lanes*k+lanes]
		if s+w <= t {
			for lane, x := range cur {
				o[lane] = (x >> uint(s)) & mask
			}
			continue
		}
		next := packed[lanes*(k+1) : lanes*(k+1)+lanes]
		for lane, x := range cur {
			o[lane] = (x>>uint(s) | next[lane]<<uint(t-s)) & mask
		}
	}
}
