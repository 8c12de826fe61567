package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Portable 32-bit Roaring bitmap serialization (RoaringFormatSpec), as written by
// roaring-rs, CRoaring and Go RoaringBitmap. Only what deletion files and fragment bitmaps
// need: decode to sorted values, and encode without run containers.

const (
	roaringCookieNoRun   = 12346
	roaringCookieRun     = 12347
	roaringNoOffsetLimit = 4
	roaringArrayMax      = 4096
	roaringBitmapBytes   = 8192
)

var errRoaringShort = errors.New("truncated")

type roaringReader struct {
	b   []byte
	off int
}

func (r *roaringReader) take(n int) ([]byte, error) {
	if n < 0 || r.off+n > len(r.b) {
		return nil, errRoaringShort
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s, nil
}

// DecodeRoaring decodes a portable Roaring bitmap into its values, ascending. Every value
// must be below limit (a bound that also caps the work a malicious input can cause).
func DecodeRoaring(data []byte, limit uint64) ([]uint32, error) {
	r := &roaringReader{b: data}
	head, err := r.take(4)
	if err != nil {
		return nil, fmt.Errorf("roaring header: %w", err)
	}
	cookie := binary.LittleEndian.Uint32(head)
	var size int
	var runFlags []byte
	switch {
	case cookie == roaringCookieNoRun:
		b, err := r.take(4)
		if err != nil {
			return nil, fmt.Errorf("roaring container count: %w", err)
		}
		size = int(binary.LittleEndian.Uint32(b))
	case cookie&0xFFFF == roaringCookieRun:
		size = int(cookie>>16) + 1
		if runFlags, err = r.take((size + 7) / 8); err != nil {
			return nil, fmt.Errorf("roaring run flags: %w", err)
		}
	default:
		return nil, fmt.Errorf("roaring: bad cookie %#x", cookie)
	}
	if size > 1<<16 {
		return nil, fmt.Errorf("roaring: %d containers", size)
	}
	desc, err := r.take(4 * size)
	if err != nil {
		return nil, fmt.Errorf("roaring descriptive header: %w", err)
	}
	if runFlags == nil || size >= roaringNoOffsetLimit {
		if _, err := r.take(4 * size); err != nil { // offsets: containers are read in order
			return nil, fmt.Errorf("roaring offset header: %w", err)
		}
	}
	var out []uint32
	prevKey := -1
	for i := range size {
		key := int(binary.LittleEndian.Uint16(desc[4*i:]))
		card := int(binary.LittleEndian.Uint16(desc[4*i+2:])) + 1
		if key <= prevKey {
			return nil, fmt.Errorf("roaring: container keys not increasing at %d", i)
		}
		prevKey = key
		if uint64(key)<<16 >= limit {
			return nil, fmt.Errorf("roaring: value %d not below limit %d", uint64(key)<<16, limit)
		}
		isRun := runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0
		if out, err = decodeContainer(r, out, uint32(key)<<16, card, isRun, limit); err != nil {
			return nil, fmt.Errorf("roaring container %d: %w", i, err)
		}
	}
	return out, nil
}

func decodeContainer(r *roaringReader, out []uint32, base uint32, card int, isRun bool, limit uint64) ([]uint32, error) {
	start := len(out)
	switch {
	case isRun:
		b, err := r.take(2)
		if err != nil {
			return nil, err
		}
		n := int(binary.LittleEndian.Uint16(b))
		runs, err := r.take(4 * n)
		if err != nil {
			return nil, err
		}
		for k := range n {
			s := uint64(binary.LittleEndian.Uint16(runs[4*k:]))
			l := uint64(binary.LittleEndian.Uint16(runs[4*k+2:])) + 1
			if s+l > 1<<16 || uint64(base)+s+l > limit {
				return nil, fmt.Errorf("run [%d,+%d) out of range", s, l)
			}
			for v := s; v < s+l; v++ {
				out = append(out, base|uint32(v))
			}
		}
	case card <= roaringArrayMax:
		b, err := r.take(2 * card)
		if err != nil {
			return nil, err
		}
		for k := range card {
			out = append(out, base|uint32(binary.LittleEndian.Uint16(b[2*k:])))
		}
	default:
		b, err := r.take(roaringBitmapBytes)
		if err != nil {
			return nil, err
		}
		for w := range roaringBitmapBytes / 8 {
			word := binary.LittleEndian.Uint64(b[8*w:])
			for word != 0 {
				out = append(out, base|uint32(w*64+bits.TrailingZeros64(word)))
				word &= word - 1
			}
		}
	}
	vals := out[start:]
	for k := 1; k < len(vals); k++ {
		if vals[k] <= vals[k-1] {
			return nil, errors.New("values not strictly increasing")
		}
	}
	if len(vals) > 0 && uint64(vals[len(vals)-1]) >= limit {
		return nil, fmt.Errorf("value %d not below limit %d", vals[len(vals)-1], limit)
	}
	return out, nil
}

// EncodeRoaring serializes sorted, distinct values as a portable Roaring bitmap without
// run containers (cookie 12346), which every Roaring implementation reads.
func EncodeRoaring(values []uint32) []byte {
	type container struct {
		key  uint16
		vals []uint32
	}
	var cs []container
	for i := 0; i < len(values); {
		key := values[i] >> 16
		j := i
		for j < len(values) && values[j]>>16 == key {
			j++
		}
		cs = append(cs, container{uint16(key), values[i:j]})
		i = j
	}
	out := binary.LittleEndian.AppendUint32(nil, roaringCookieNoRun)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(cs)))
	for _, c := range cs {
		out = binary.LittleEndian.AppendUint16(out, c.key)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(c.vals)-1))
	}
	offset := len(out) + 4*len(cs)
	for _, c := range cs {
		out = binary.LittleEndian.AppendUint32(out, uint32(offset))
		if len(c.vals) <= roaringArrayMax {
			offset += 2 * len(c.vals)
		} else {
			offset += roaringBitmapBytes
		}
	}
	for _, c := range cs {
		if len(c.vals) <= roaringArrayMax {
			for _, v := range c.vals {
				out = binary.LittleEndian.AppendUint16(out, uint16(v))
			}
			continue
		}
		var words [roaringBitmapBytes / 8]uint64
		for _, v := range c.vals {
			lo := v & 0xFFFF
			words[lo/64] |= 1 << (lo % 64)
		}
		for _, w := range words {
			out = binary.LittleEndian.AppendUint64(out, w)
		}
	}
	return out
}

// sortedUnique sorts vals and removes duplicates in place.
func sortedUnique(vals []uint32) []uint32 {
	slices.Sort(vals)
	return slices.Compact(vals)
}
