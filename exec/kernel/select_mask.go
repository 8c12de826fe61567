package kernel

import (
	"encoding/binary"
	"unsafe"
)

// SelMask returns a mask of n rows, reusing buf's storage, set exactly at the positions in
// sel (ascending, each in [0, n)).
func SelMask(buf []bool, sel []int32, n int) []bool {
	if cap(buf) < n {
		buf = make([]bool, n)
	}
	buf = buf[:n]
	clear(buf)
	for _, r := range sel {
		buf[r] = true
	}
	return buf
}

// Iota32 returns 0, 1, ..., n-1, reusing buf's storage.
func Iota32(buf []int32, n int) []int32 {
	if cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = int32(i)
	}
	return buf
}

// MaskSel returns the positions set in mask, reusing buf's storage.
func MaskSel(buf []int32, mask []bool) []int32 {
	buf = buf[:0]
	for i, m := range mask {
		if m {
			buf = append(buf, int32(i))
		}
	}
	return buf
}

// MaskUnset returns the positions not set in mask, reusing buf's storage. Eight set rows
// in a row are passed over with one load, so a mask that keeps most rows costs little.
func MaskUnset(buf []int32, mask []bool) []int32 {
	buf = buf[:0]
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mask))), len(mask)) // a Go bool is one byte, 0 or 1
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) == allSet {
			continue
		}
		for j := i; j < i+8; j++ {
			if b[j] == 0 {
				buf = append(buf, int32(j))
			}
		}
	}
	for ; i < len(b); i++ {
		if b[i] == 0 {
			buf = append(buf, int32(i))
		}
	}
	return buf
}

// allSet is eight true bools read as one little-endian word.
const allSet = 0x0101010101010101
