package ops

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Small-group aggregation: when the group keys are narrow (short strings, small integers,
// dates, booleans) every row's key packs into one uint64, each key column in a fixed bit
// field (a validity bit, then the value; strings: a 3-bit length, then up to 7 bytes). Few
// distinct packed keys are matched in a small open-addressing table instead of encoding
// each row's key into bytes and hashing it. The packed keys are a cache over
// the aggregate's group map: a batch with a key not cached yet goes through the general path,
// which then teaches the cache its keys (learn). Packing is injective for a fixed layout, so
// two rows share a packed key exactly when they share the general path's key.

const (
	// smallMax is the most keys cached; with more groups the cache turns itself off.
	smallMax = 4096
	// maxPackedString is the longest string a packed key holds (the length has 3 bits).
	maxPackedString = 7
)

// smallKeys is the packed-key cache of one aggregate.
type smallKeys struct {
	off    bool        // not applicable to these keys (or too many groups): never used again
	widths []int       // per key column: bits of its field (validity bit included); nil: no layout yet
	str    []bool      // per key column: a string column
	bytes  []int       // per string key column: its byte slots (0 for other columns)
	table  []smallSlot // cached packed keys with their groups (open addressing, linear probing)
	shift  uint        // 64 - log2(len(table)): a key's home slot is its hash >> shift
	nkeys  int         // keys in table
	packed []uint64    // per row of the current batch
	fits   []bool      // per row: its key packs into the layout
	chars  *charTable  // groups of one-byte keys (aggregate_chars.go); nil until used
	// charBatches counts the batches assigned through chars
	charBatches int
}

// assign sets the group of every included row of the batch whose key columns are cols and
// reports true, or reports false (groups then undefined) when the cache cannot: it is off,
// or a row's key does not pack or is not cached yet.
func (s *smallKeys) assign(cols []arrow.Array, groups []int32, include []bool) bool {
	if s.off || len(cols) == 0 {
		return false
	}
	if s.widths == nil && !s.layout(cols) {
		return false
	}
	if done, ok := s.assignChars(cols, groups, include); done {
		return ok
	}
	if !s.pack(cols) {
		return false
	}
	groups = groups[:len(s.packed)]
	for r, k := range s.packed {
		if include != nil && !include[r] {
			continue
		}
		g, ok := s.lookup(k)
		if !ok {
			return false
		}
		groups[r] = g
	}
	return true
}

// smallSlot is one slot of the packed-key table; group -1 marks an empty slot.
type smallSlot struct {
	key   uint64
	group int32
}

// smallHash spreads a packed key over the table's high bits (Fibonacci hashing).
func smallHash(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 }

// lookup returns the group of packed key k.
func (s *smallKeys) lookup(k uint64) (int32, bool) {
	if s.nkeys == 0 {
		return 0, false
	}
	mask := uint64(len(s.table) - 1)
	for h := smallHash(k) >> s.shift; ; h = (h + 1) & mask {
		e := s.table[h]
		if e.key == k && e.group >= 0 {
			return e.group, true
		}
		if e.group < 0 {
			return 0, false
		}
	}
}

// insert adds packed key k (not in the table yet) with its group, growing the table to
// keep it at most half full.
func (s *smallKeys) insert(k uint64, g int32) {
	if 2*(s.nkeys+1) > len(s.table) {
		s.rehash(max(32, 2*len(s.table)))
	}
	mask := uint64(len(s.table) - 1)
	h := smallHash(k) >> s.shift
	for s.table[h].group >= 0 {
		h = (h + 1) & mask
	}
	s.table[h] = smallSlot{key: k, group: g}
	s.nkeys++
}

// rehash moves the keys into a table of size slots (a power of two).
func (s *smallKeys) rehash(size int) {
	old := s.table
	s.table = make([]smallSlot, size)
	for i := range s.table {
		s.table[i].group = -1
	}
	s.shift = uint(64 - bits.Len(uint(size-1)))
	s.nkeys = 0
	for _, e := range old {
		if e.group >= 0 {
			s.insert(e.key, e.group)
		}
	}
}

// learn caches the packed keys of the included rows whose keys pack, with their groups
// (assigned by the general path).
func (s *smallKeys) learn(cols []arrow.Array, groups []int32, include []bool) {
	if s.off || s.widths == nil {
		return
	}
	s.pack(cols)
	for r, k := range s.packed {
		if !s.fits[r] || (include != nil && !include[r]) {
			continue
		}
		if _, ok := s.lookup(k); ok {
			continue
		}
		if s.nkeys >= smallMax {
			s.off, s.table, s.nkeys = true, nil, 0
			return
		}
		s.insert(k, groups[r])
	}
}

// layout chooses each key column's field from the first batch (strings get as many byte
// slots as the batch's longest value); it turns the cache off when the keys do not fit 64
// bits.
func (s *smallKeys) layout(cols []arrow.Array) bool {
	widths, slots, strs := make([]int, len(cols)), make([]int, len(cols)), make([]bool, len(cols))
	total := 0
	for c, col := range cols {
		w, ok := valueBits(col.DataType().ID())
		if offs, isStr := binaryOffsets(col); isStr {
			slots[c], strs[c], ok = longest(offs), true, true
			w = 3 + 8*slots[c]
		}
		if !ok || slots[c] > maxPackedString {
			s.off = true
			return false
		}
		widths[c] = 1 + w
		total += widths[c]
	}
	if total > 64 {
		s.off = true
		return false
	}
	s.widths, s.bytes, s.str = widths, slots, strs
	return true
}

// valueBits returns the bits of a fixed-width key type's values.
func valueBits(id arrow.Type) (int, bool) {
	switch id {
	case arrow.BOOL:
		return 1, true
	case arrow.INT8, arrow.UINT8:
		return 8, true
	case arrow.INT16, arrow.UINT16:
		return 16, true
	case arrow.INT32, arrow.UINT32, arrow.DATE32:
		return 32, true
	}
	return 0, false
}

// binaryOffsets returns col's offsets when it is a string or binary array with 32-bit offsets.
func binaryOffsets(col arrow.Array) ([]int32, bool) {
	switch c := col.(type) {
	case *array.String:
		return c.ValueOffsets(), true
	case *array.Binary:
		return c.ValueOffsets(), true
	}
	return nil, false
}

// longest returns the longest value's length given a string array's offsets.
func longest(offs []int32) int {
	m := 0
	for i := 1; i < len(offs); i++ {
		m = max(m, int(offs[i]-offs[i-1]))
	}
	return m
}

// pack computes every row's packed key into s.packed and whether it fits (s.fits); it
// reports whether every row fits.
func (s *smallKeys) pack(cols []arrow.Array) bool {
	n := cols[0].Len()
	s.packed = grow(s.packed[:0], n)[:n]
	s.fits = grow(s.fits[:0], n)[:n]
	clear(s.packed)
	for r := range s.fits {
		s.fits[r] = true
	}
	all := true
	for c, col := range cols {
		if !s.packColumn(c, col) {
			all = false
		}
	}
	return all
}

// packColumn shifts column c's field into every row's packed key; false when some row's
// value does not fit its field (that row's fits is cleared) or the column changed type.
func (s *smallKeys) packColumn(c int, col arrow.Array) bool {
	w := s.widths[c]
	if s.str[c] {
		offs, ok := binaryOffsets(col)
		if !ok {
			s.off = true
			return false
		}
		return s.packStrings(c, col, offs)
	}
	d := col.Data()
	var raw []byte
	if len(d.Buffers()) > 1 && d.Buffers()[1] != nil {
		raw = d.Buffers()[1].Bytes()
	}
	off := d.Offset()
	switch col.DataType().ID() {
	case arrow.BOOL:
		for r := range s.packed {
			bit := uint64(raw[(off+r)/8]>>((off+r)%8)) & 1
			s.packed[r] = s.packed[r]<<uint(w) | 2 | bit
		}
	case arrow.INT8, arrow.UINT8:
		packFixed(s.packed, arrow.GetValues[uint8](d, 1), w)
	case arrow.INT16, arrow.UINT16:
		packFixed(s.packed, arrow.GetValues[uint16](d, 1), w)
	case arrow.INT32, arrow.UINT32, arrow.DATE32:
		packFixed(s.packed, arrow.GetValues[uint32](d, 1), w)
	default:
		s.off = true
		return false
	}
	s.clearNulls(col, w)
	return true
}

// packFixed shifts each row's packed key left by w and sets the new field (w bits) to its
// validity bit and value (NULLs are cleared later).
func packFixed[T uint8 | uint16 | uint32](packed []uint64, vals []T, w int) {
	valid := uint64(1) << uint(w-1)
	for r, v := range vals[:len(packed)] {
		packed[r] = packed[r]<<uint(w) | valid | uint64(v)
	}
}

// clearNulls zeroes the field (width w, the low bits) of every NULL row.
func (s *smallKeys) clearNulls(col arrow.Array, w int) {
	if col.NullN() == 0 {
		return
	}
	mask := ^(uint64(1)<<uint(w) - 1)
	for r := range s.packed {
		if col.IsNull(r) {
			s.packed[r] &= mask
		}
	}
}

// packStrings packs a string column: validity bit, 3-bit length, then the bytes.
func (s *smallKeys) packStrings(c int, col arrow.Array, offs []int32) bool {
	slots, w := s.bytes[c], uint(s.widths[c])
	var raw []byte
	if bufs := col.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		raw = bufs[2].Bytes()
	}
	all := true
	if slots == 1 {
		all = packChars(s.packed, s.fits, offs, raw, w)
	} else {
		for r := range s.packed {
			lo, hi := int(offs[r]), int(offs[r+1])
			s.packed[r] <<= w
			if hi-lo > slots {
				s.fits[r], all = false, false
				continue
			}
			v := uint64(1)<<3 | uint64(hi-lo)
			for k := range slots {
				v <<= 8
				if lo+k < hi {
					v |= uint64(raw[lo+k])
				}
			}
			s.packed[r] |= v
		}
	}
	s.clearNulls(col, s.widths[c])
	return all
}

// packChars is packStrings for a column of at most one byte per value (one byte slot).
func packChars(packed []uint64, fits []bool, offs []int32, raw []byte, w uint) bool {
	all := true
	offs = offs[:len(packed)+1]
	for r := range packed {
		lo := offs[r]
		l := offs[r+1] - lo
		v := uint64(1<<3|l) << 8
		switch {
		case l == 1:
			v |= uint64(raw[lo])
		case l != 0:
			fits[r], all, v = false, false, 0
		}
		packed[r] = packed[r]<<w | v
	}
	return all
}
