package ops

// pairSet is an open-addressing (linear probing) set of (group, integer value) pairs: the
// DISTINCT set of an aggregate over an integer argument, cheaper than a Go map keyed by the
// encoded pair (no string key, no allocation per entry, one multiply-xor hash).
type pairSet struct {
	slots []pairSlot // len is a power of two, at most half full
	n     int        // pairs held
}

// pairSlot is one slot of a pairSet; tag 0 marks an empty slot.
type pairSlot struct {
	tag uint32 // group+1 (groups stay below 1<<31 - 1), with pairNull set when the value is NULL
	val uint64 // the value's bits (0 for NULL)
}

const (
	pairNull      = 1 << 31 // the tag bit of a NULL value
	pairSetMin    = 64      // slots of a new set
	pairSlotBytes = 16      // accounted size of one slot
)

// newPairSet returns an empty set.
func newPairSet() *pairSet { return &pairSet{slots: make([]pairSlot, pairSetMin)} }

// pairHash mixes a pair's tag and value (the murmur3 finalizer).
func pairHash(tag uint32, val uint64) uint64 {
	h := val ^ uint64(tag)<<32 ^ uint64(tag)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// add inserts the pair (tag, val) and reports whether it was new, with the bytes the set
// grew by.
func (s *pairSet) add(tag uint32, val uint64) (bool, int64) {
	mask := uint64(len(s.slots) - 1)
	for i := pairHash(tag, val) & mask; ; i = (i + 1) & mask {
		sl := &s.slots[i]
		if sl.tag == 0 {
			sl.tag, sl.val = tag, val
			s.n++
			if 2*s.n > len(s.slots) {
				return true, s.grow()
			}
			return true, 0
		}
		if sl.tag == tag && sl.val == val {
			return false, 0
		}
	}
}

// grow doubles the slots and returns the bytes added.
func (s *pairSet) grow() int64 {
	old := s.slots
	s.slots = make([]pairSlot, 2*len(old))
	mask := uint64(len(s.slots) - 1)
	for _, sl := range old {
		if sl.tag == 0 {
			continue
		}
		i := pairHash(sl.tag, sl.val) & mask
		for s.slots[i].tag != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = sl
	}
	return int64(len(s.slots)-len(old)) * pairSlotBytes
}
