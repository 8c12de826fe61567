package compress

import (
	"runtime"
	"unsafe"
)

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

// unalignedWordsOK says the platform loads and stores unaligned uint64 words in hardware
// (flightd's release targets do).
const unalignedWordsOK = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// unpackSpecialised unpacks one block (0 < w <= t, packed and out long enough) with the
// generated unpacker for (t, w), writing straight into out: for t < 64 the one working on
// uint64 words, for t = 64 the lane-by-lane one. It reports false, doing nothing, when
// the words would be unaligned and the platform needs them aligned (t = 64 always does
// here; the caller then unpacks generically).
func unpackSpecialised(t, w int, packed, out []byte) bool {
	if t == 64 {
		return unpackTyped(unpack64Funcs[w], w, packed, out)
	}
	if !unalignedWordsOK && (!aligned8(packed) || !aligned8(out)) {
		return false
	}
	unpackWide(t, w, packed, out)
	return true
}

// aligned8 reports whether b starts on an 8-byte boundary.
func aligned8(b []byte) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0 }

// unpackWide runs the generated unpacker for (t < 64, w) that unpacks 64/t lanes at once
// in uint64 words, viewing packed and out as words at any alignment (see unalignedWordsOK;
// the words hold no pointers, so the views are valid Go and checkptr accepts them).
func unpackWide(t, w int, packed, out []byte) {
	p := unalignedWords(packed[:FastLanesPackedSize(w)])
	o := unalignedWords(out[:FastLanesBlockValues*t/8])
	switch t {
	case 8:
		unpack8WideFuncs[w](p, o)
	case 16:
		unpack16WideFuncs[w](p, o)
	default:
		unpack32WideFuncs[w](p, o)
	}
}

// unalignedWords views b, whose length is a multiple of 8, as little-endian uint64 words
// at any alignment.
func unalignedWords(b []byte) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
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
