package encoding

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"
)

// AppendGather appends dict's slot k for each of the n dictionary indices packed in raw
// (bits wide: 8, 16, 32 or 64, little-endian). An index past the dictionary appends an
// empty valid slot: null slots may carry any index, and their value is never looked at.
// Fixed-width and variable-width dictionaries without nulls are copied in bulk; other
// shapes slot by slot.
func (b *Builder) AppendGather(dict *Builder, raw []byte, bits, n int) error {
	return b.appendGather(dict, nil, raw, bits, n)
}

// appendGather is AppendGather with a cache for the dictionary's short-value table (nil:
// none), kept by a caller that gathers from one dictionary many times.
func (b *Builder) appendGather(dict *Builder, short **shortDict, raw []byte, bits, n int) error {
	if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
		return fmt.Errorf("dictionary indices of %d bits: %w", bits, ErrCorrupt)
	}
	if n < 0 || len(raw) < n*(bits/8) {
		return fmt.Errorf("%d dictionary indices of %d bits in %d bytes: %w", n, bits, len(raw), ErrCorrupt)
	}
	raw = raw[:n*(bits/8)]
	switch bits {
	case 8:
		return gatherInto(b, dict, short, raw)
	case 16:
		if idx, ok := castSlice[uint16](raw); ok {
			return gatherInto(b, dict, short, idx)
		}
	case 32:
		if idx, ok := castSlice[uint32](raw); ok {
			return gatherInto(b, dict, short, idx)
		}
	default:
		if idx, ok := castSlice[uint64](raw); ok {
			return gatherInto(b, dict, short, idx)
		}
	}
	idx := make([]uint64, n) // unaligned indices: widen them first
	for i := range idx {
		switch bits {
		case 16:
			idx[i] = uint64(binary.LittleEndian.Uint16(raw[2*i:]))
		case 32:
			idx[i] = uint64(binary.LittleEndian.Uint32(raw[4*i:]))
		default:
			idx[i] = binary.LittleEndian.Uint64(raw[8*i:])
		}
	}
	return gatherInto(b, dict, short, idx)
}

// index is the type of a dictionary index.
type index interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// castSlice views b (little-endian, as on every platform flightd builds for) as a slice
// of V, rounded down to whole values. It reports false, and returns nil, when b is not
// aligned for V (the caller then takes a slower path).
func castSlice[V any](b []byte) ([]V, bool) {
	var v V
	size := int(unsafe.Sizeof(v))
	if len(b) < size {
		return nil, len(b) == 0
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%unsafe.Alignof(v) != 0 {
		return nil, false
	}
	return unsafe.Slice((*V)(p), len(b)/size), true
}

// gatherInto appends dict[k] for each index k of idx to b.
func gatherInto[I index](b, dict *Builder, short **shortDict, idx []I) error {
	if b.kind != dict.kind || dict.valid.nulls > 0 {
		return gatherSlots(b, dict, idx)
	}
	switch {
	case b.kind == KindFixed && b.bits == dict.bits && b.bits%8 == 0:
		if len(dict.fixed) < dict.n*(dict.bits/8) {
			return fmt.Errorf("dictionary of %d values in %d bytes: %w", dict.n, len(dict.fixed), ErrCorrupt)
		}
		gatherFixed(b, dict, idx)
	case b.kind == KindVariable:
		if err := gatherVarWidth(b, dict, short, idx); err != nil {
			return err
		}
	default:
		return gatherSlots(b, dict, idx)
	}
	b.valid.appendN(true, len(idx))
	b.n += len(idx)
	return nil
}

// gatherSlots appends the dictionary values one slot at a time.
func gatherSlots[I index](b, dict *Builder, idx []I) error {
	switch dict.kind {
	case KindVariable:
		if err := checkVarDict(dict); err != nil {
			return err
		}
	case KindFixed:
		if int64(len(dict.fixed))*8 < int64(dict.n)*int64(dict.bits) {
			return fmt.Errorf("dictionary of %d %d-bit values in %d bytes: %w", dict.n, dict.bits, len(dict.fixed), ErrCorrupt)
		}
	}
	for _, k := range idx {
		if uint64(k) >= uint64(dict.Len()) {
			b.AppendEmpty(1)
			continue
		}
		if err := b.AppendFrom(dict, int(k), int(k)+1); err != nil {
			return err
		}
	}
	return nil
}

// gatherFixed copies byte-aligned fixed-width values; out-of-range indices give zeros.
func gatherFixed[I index](b, dict *Builder, idx []I) {
	w := b.bits / 8
	start := len(b.fixed)
	b.fixed = slices.Grow(b.fixed, len(idx)*w)[:start+len(idx)*w]
	out, src := b.fixed[start:], dict.fixed[:dict.n*w]
	switch w {
	case 1:
		gatherWords(out, src, idx)
		return
	case 2:
		if gatherCast[uint16](out, src, idx) {
			return
		}
	case 4:
		if gatherCast[uint32](out, src, idx) {
			return
		}
	case 8:
		if gatherCast[uint64](out, src, idx) {
			return
		}
	case 16:
		if gatherCast[[2]uint64](out, src, idx) {
			return
		}
	}
	clear(out)
	for i, k := range idx {
		if uint64(k) < uint64(dict.n) {
			copy(out[i*w:(i+1)*w], src[int(k)*w:])
		}
	}
}

// gatherCast is gatherWords over out and src viewed as slices of V; it reports false,
// doing nothing, if either is not aligned for V.
func gatherCast[V any, I index](out, src []byte, idx []I) bool {
	o, ok1 := castSlice[V](out)
	s, ok2 := castSlice[V](src)
	if !ok1 || !ok2 {
		return false
	}
	gatherWords(o, s, idx)
	return true
}

// gatherWords sets out[i] = src[idx[i]], or the zero value for an index past src.
func gatherWords[V any, I index](out, src []V, idx []I) {
	out = out[:len(idx)]
	var zero V
	for i, k := range idx {
		if uint64(k) < uint64(len(src)) {
			out[i] = src[k]
		} else {
			out[i] = zero
		}
	}
}

// gatherVarWidth copies variable-width values; out-of-range indices give empty values.
// The dictionary's offsets are checked (once per cache, see newShortDict) before use.
func gatherVarWidth[I index](b, dict *Builder, short **shortDict, idx []I) error {
	var sd *shortDict
	if short != nil && *short != nil {
		sd = *short
	} else {
		var err error
		if sd, err = newShortDict(dict); err != nil {
			return err
		}
		if short != nil {
			*short = sd
		}
	}
	b.offsets = slices.Grow(b.offsets, len(idx))
	if sd.ok {
		gatherShort(b, sd, idx)
		return nil
	}
	offs, data, dn := dict.offsets, dict.data, uint64(dict.n)
	total := 0
	for _, k := range idx {
		if uint64(k) < dn {
			total += int(offs[k+1] - offs[k])
		}
	}
	b.data = b.growData(total, len(idx))
	for _, k := range idx {
		if uint64(k) < dn {
			b.data = append(b.data, data[offs[k]:offs[k+1]]...)
		}
		b.offsets = append(b.offsets, int64(len(b.data)))
	}
	return nil
}

// checkVarDict verifies that a variable-width dictionary's n+1 offsets exist, start at or
// after 0, never decrease and end inside its bytes, so gathering can index them freely.
func checkVarDict(dict *Builder) error {
	dn := dict.n
	if dn < 0 || len(dict.offsets) < dn+1 {
		return fmt.Errorf("dictionary of %d values with %d offsets: %w", dn, len(dict.offsets), ErrCorrupt)
	}
	if dict.offsets[0] < 0 {
		return fmt.Errorf("dictionary offsets start at %d: %w", dict.offsets[0], ErrCorrupt)
	}
	for k := range dn {
		if dict.offsets[k+1] < dict.offsets[k] {
			return fmt.Errorf("dictionary value %d spans [%d, %d): %w", k, dict.offsets[k], dict.offsets[k+1], ErrCorrupt)
		}
	}
	if end := dict.offsets[dn]; end > int64(len(dict.data)) {
		return fmt.Errorf("dictionary values end at %d of %d bytes: %w", end, len(dict.data), ErrCorrupt)
	}
	return nil
}

// maxShortWords bounds, in 8-byte words, the values a shortDict holds.
const maxShortWords = 4

// shortDict is a variable-width dictionary laid out for gathering values of at most
// 32 bytes: each value as stride little-endian words, and its length. One more entry,
// empty, follows the dictionary's dn values: indices past them are clamped to it.
type shortDict struct {
	ok      bool // every value is at most maxShortWords words
	stride  int
	words   []uint64 // (dn+1)*stride
	lens    []int64  // dn+1
	sameLen int64    // the length of every value if all are equally long, else -1
}

// newShortDict checks dict (checkVarDict) and lays it out for gatherShort; the result's ok
// is false when some value is too long for that.
func newShortDict(dict *Builder) (*shortDict, error) {
	if err := checkVarDict(dict); err != nil {
		return nil, err
	}
	dn, longest := dict.n, int64(0)
	for k := range dn {
		longest = max(longest, dict.offsets[k+1]-dict.offsets[k])
	}
	stride := int(max(1, (longest+7)/8))
	if stride > maxShortWords {
		return &shortDict{}, nil
	}
	sd := &shortDict{ok: true, stride: stride, words: make([]uint64, stride*(dn+1)), lens: make([]int64, dn+1), sameLen: -1}
	for k := range dn {
		var w [8 * maxShortWords]byte
		copy(w[:], dict.data[dict.offsets[k]:dict.offsets[k+1]])
		for j := range stride {
			sd.words[k*stride+j] = binary.LittleEndian.Uint64(w[8*j:])
		}
		sd.lens[k] = dict.offsets[k+1] - dict.offsets[k]
	}
	if dn > 0 && slices.Min(sd.lens[:dn]) == slices.Max(sd.lens[:dn]) {
		sd.sameLen = sd.lens[0]
	}
	return sd, nil
}

// sumLens returns the total length of the values idx selects (past the dictionary: empty).
func sumLens[I index](sd *shortDict, idx []I) int {
	dn := uint64(len(sd.lens) - 1)
	if sd.sameLen >= 0 {
		out := 0
		for _, k := range idx {
			if uint64(k) < dn {
				out++
			}
		}
		return out * int(sd.sameLen)
	}
	lens := sd.lens[:dn+1]
	total := int64(0)
	for _, k := range idx {
		total += lens[min(uint64(k), dn)]
	}
	return int(total)
}

// gatherShort writes each value as stride 8-byte words (the output has that much slack),
// then moves the end by the value's length.
func gatherShort[I index](b *Builder, sd *shortDict, idx []I) {
	total := sumLens(sd, idx)
	dn, stride := uint64(len(sd.lens)-1), sd.stride
	slack := 8 * stride
	start := len(b.data)
	b.data = b.growData(total+slack, len(idx))
	out := b.data[start : start+total+slack]
	n0 := len(b.offsets)
	b.offsets = b.offsets[:n0+len(idx)]
	ends := b.offsets[n0:]
	// Every store is in bounds: before value i, pos is the length of values 0..i-1, at
	// most total minus value i's length, and out has slack words beyond total.
	dst, base := unsafe.Pointer(unsafe.SliceData(out)), int64(start)
	words, lens := sd.words[:int(dn+1)*stride], sd.lens[:dn+1]
	pos := int64(0)
	switch stride {
	case 1: // flags, modes, short codes
		for i, k := range idx {
			k := min(uint64(k), dn)
			*(*uint64)(unsafe.Add(dst, pos)) = words[k]
			pos += lens[k]
			ends[i] = base + pos
		}
	case 3: // TPC-H l_shipinstruct (up to 17 bytes)
		for i, k := range idx {
			k := min(uint64(k), dn)
			w := (*[3]uint64)(words[3*k : 3*k+3])
			// Three word stores: an array assignment compiles to a memmove call.
			p := (*[3]uint64)(unsafe.Add(dst, pos))
			p[0], p[1], p[2] = w[0], w[1], w[2]
			pos += lens[k]
			ends[i] = base + pos
		}
	default:
		for i, k := range idx {
			k := min(uint64(k), dn)
			w := words[int(k)*stride : int(k)*stride+stride]
			for j, x := range w {
				*(*uint64)(unsafe.Add(dst, pos+int64(8*j))) = x
			}
			pos += lens[k]
			ends[i] = base + pos
		}
	}
	b.data = b.data[:start+int(pos)]
}
