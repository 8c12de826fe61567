package compress

import (
	"encoding/binary"
	"math/bits"
)

// getWord reads the little-endian word of byteWidth bytes (1, 2, 4 or 8) at
// index i of b. The caller guarantees bounds.
func getWord(b []byte, i, byteWidth int) uint64 {
	switch byteWidth {
	case 1:
		return uint64(b[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[i*2:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[i*4:]))
	default:
		return binary.LittleEndian.Uint64(b[i*8:])
	}
}

// putWord writes v as a little-endian word of byteWidth bytes (1, 2, 4 or 8)
// at index i of b, truncating v to the width. The caller guarantees bounds.
func putWord(b []byte, i, byteWidth int, v uint64) {
	switch byteWidth {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[i*2:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[i*4:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[i*8:], v)
	}
}

// widthMask returns a mask of the low w bits (w in [0,64]).
func widthMask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return (uint64(1) << uint(w)) - 1
}

// bitWidth returns the number of bits needed to represent v (0 for 0).
func bitWidth(v uint64) int { return bits.Len64(v) }
