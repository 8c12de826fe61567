package compress

import "unsafe"

//go:generate go run ./internal/flgen

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

// unpackSpecialised unpacks one block (0 < w <= t, packed and out long enough) with the
// generated unpacker for (t, w), writing straight into out; it reports false, doing
// nothing, when packed or out is not aligned for t-bit words (the caller then unpacks
// generically).
func unpackSpecialised(t, w int, packed, out []byte) bool {
	switch t {
	case 8:
		unpack8Funcs[w](packed[:FastLanesPackedSize(w)], (*[FastLanesBlockValues]uint8)(out))
		return true
	case 16:
		return unpackTyped(unpack16Funcs[w], w, packed, out)
	case 32:
		return unpackTyped(unpack32Funcs[w], w, packed, out)
	case 64:
		return unpackTyped(unpack64Funcs[w], w, packed, out)
	}
	return false
}

// unpackTyped runs the generated unpacker f over packed and out viewed as words of W, or
// reports false when either is not aligned for W.
func unpackTyped[W word](f func([]W, *[FastLanesBlockValues]W), w int, packed, out []byte) bool {
	var z W
	size := int(unsafe.Sizeof(z))
	p, ok1 := wordsOf[W](packed[:FastLanesPackedSize(w)])
	o, ok2 := wordsOf[W](out[:FastLanesBlockValues*size])
	if !ok1 || !ok2 {
		return false
	}
	f(p, (*[FastLanesBlockValues]W)(o))
	return true
}
