package index

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// sbbfSalt are the split-block Bloom filter salts (§8.5, as in Parquet).
var sbbfSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// SBBF is a split-block Bloom filter: 32-byte blocks of 8 little-endian u32 words.
type SBBF struct {
	blocks [][8]uint32
}

// DecodeSBBF decodes a filter; its length must be a non-zero multiple of 32.
func DecodeSBBF(b []byte) (SBBF, error) {
	if len(b) == 0 || len(b)%32 != 0 {
		return SBBF{}, corrupt("bloom filter of %d bytes is not whole 32-byte blocks", len(b))
	}
	f := SBBF{blocks: make([][8]uint32, len(b)/32)}
	for i := range f.blocks {
		for w := range 8 {
			f.blocks[i][w] = binary.LittleEndian.Uint32(b[i*32+w*4:])
		}
	}
	return f, nil
}

// NewSBBF returns an empty filter of n blocks (at least 1).
func NewSBBF(n int) SBBF { return SBBF{blocks: make([][8]uint32, max(n, 1))} }

// Encode serializes the filter.
func (f SBBF) Encode() []byte {
	out := make([]byte, 0, len(f.blocks)*32)
	for _, blk := range f.blocks {
		for _, w := range blk {
			out = binary.LittleEndian.AppendUint32(out, w)
		}
	}
	return out
}

func (f SBBF) block(h uint64) *[8]uint32 {
	return &f.blocks[((h>>32)*uint64(len(f.blocks)))>>32]
}

// Insert adds a hash.
func (f SBBF) Insert(h uint64) {
	blk, k := f.block(h), uint32(h)
	for i, s := range sbbfSalt {
		blk[i] |= 1 << ((k * s) >> 27)
	}
}

// MayContain reports whether the hash may have been inserted.
func (f SBBF) MayContain(h uint64) bool {
	blk, k := f.block(h), uint32(h)
	for i, s := range sbbfSalt {
		if blk[i]&(1<<((k*s)>>27)) == 0 {
			return false
		}
	}
	return true
}

// xxhashSum64 is xxHash64 with seed 0, the bloom filter hash.
func xxhashSum64(b []byte) uint64 { return xxhash.Sum64(b) }
