package encoding

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"
)

// appendVariable32 is AppendVariable for values [lo, hi) of a Variable mini-block chunk
// with 32-bit offsets (buf: n+1 little-endian uint32 offsets relative to buf, then the
// value bytes), read straight from buf: it checks what DecodeVariableMiniBlock checks (all
// n+1 offsets non-decreasing, the last within buf) and writes the builder's offsets in
// the same pass, without widening the chunk's offsets first.
func (b *Builder) appendVariable32(buf []byte, n, lo, hi int) error {
	if b.kind != KindVariable {
		return fmt.Errorf("append variable-width values to %s: %w", b.typ, ErrCorrupt)
	}
	if n < 0 || uint64(n)+1 > uint64(len(buf)/4) || lo < 0 || hi < lo || hi > n {
		return fmt.Errorf("values [%d,%d) of %d with 32-bit offsets in %d bytes: %w", lo, hi, n, len(buf), ErrCorrupt)
	}
	var raw []uint32
	if p := unsafe.Pointer(unsafe.SliceData(buf)); uintptr(p)%4 == 0 {
		raw = unsafe.Slice((*uint32)(p), n+1) // every platform flightd builds for is little-endian
	} else {
		raw = make([]uint32, n+1)
		for i := range raw {
			raw[i] = binary.LittleEndian.Uint32(buf[4*i:])
		}
	}
	if decreases32(raw[:lo+1]) || decreases32(raw[hi:]) || uint64(raw[n]) > uint64(len(buf)) {
		return variable32Error(raw, len(buf))
	}
	first, last := int64(raw[lo]), int64(raw[hi])
	base, n0 := int64(len(b.data))-first, len(b.offsets)
	b.offsets = slices.Grow(b.offsets, hi-lo)[:n0+hi-lo]
	if !rebaseEnds32(b.offsets[n0:], raw[lo:hi+1], base) {
		b.offsets = b.offsets[:n0]
		return variable32Error(raw, len(buf))
	}
	b.data = append(b.growData(int(last-first), hi-lo), buf[first:last]...)
	b.valid.appendN(true, hi-lo)
	b.n += hi - lo
	return nil
}

// decreases32 reports whether some offset is below the one before it. The differences are
// taken in int64, where a decrease is negative: ORing them leaves the sign bit set exactly
// when one is (math/bits.Sub32 is not an intrinsic and costs a dozen instructions).
func decreases32(offs []uint32) bool {
	var acc int64
	for i := 1; i < len(offs); i++ {
		acc |= int64(offs[i]) - int64(offs[i-1])
	}
	return acc < 0
}

// rebaseEnds32 is rebaseEnds for 32-bit offsets: dst[i] = base + src[i+1], reporting
// whether src never decreases. The int64 differences of consecutive offsets are ORed into
// one accumulator whose sign bit says whether one was negative; the plain loop carrying
// the previous offset beats an unrolled one (fewer registers spilled; a one-byte-string
// chunk spends most of its decoding here).
func rebaseEnds32(dst []int64, src []uint32, base int64) bool {
	src = src[:len(dst)+1]
	var acc int64
	prev := int64(src[0])
	for i, v := range src[1:] {
		x := int64(v)
		acc |= x - prev
		prev = x
		dst[i] = base + x
	}
	return acc >= 0
}

// variable32Error describes the first bad offset of a chunk appendVariable32 rejected.
func variable32Error(raw []uint32, size int) error {
	for i := 1; i < len(raw); i++ {
		if raw[i] < raw[i-1] {
			return fmt.Errorf("variable mini-block: offset %d (%d) is below offset %d (%d): %w", i, raw[i], i-1, raw[i-1], ErrCorrupt)
		}
	}
	return fmt.Errorf("variable mini-block: offset %d (%d) past end of buffer (%d): %w", len(raw)-1, raw[len(raw)-1], size, ErrCorrupt)
}
