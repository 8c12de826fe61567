package ops

// A join on one integer key whose build values fill a narrow range (a primary key:
// TPC-H's customer, supplier and part keys are 1..n, orders' keys a quarter of 1..4n) is
// indexed by the key itself: the head of key k's chain sits at heads[k-min], so a probe
// is one array read, without hashing or comparing hashes (DuckDB's perfect hash join).

// denseSlack bounds the range of a dense index: at most denseSlack slots per build row
// (4 bytes each, against 12 per slot at most half full in a flatPart), or denseMinSlots
// for any build side (256 KiB of heads: a small dimension's keys, TPC-H's suppliers of one
// nation, span their whole table).
const (
	denseSlack    = 4
	denseMinSlots = 1 << 16
)

// denseMaxSlots bounds a dense index's slots (64 MiB of heads).
const denseMaxSlots = 1 << 24

// denseIndex maps key k to the head of its chain of build rows, as row + 1 at
// heads[k-min] (0: no row).
type denseIndex struct {
	min   int64
	heads []int32
}

// newDenseIndex indexes the rows of keys (one key column, widened) whose key is valid, when
// their values span at most max(denseSlack·rows, denseMinSlots) and denseMaxSlots values; nil
// otherwise. It links rows of equal key through next (each row becomes its chain's head,
// as flatPart.insert does) and reports whether any key repeats.
func newDenseIndex(keys []int64, next []int32, isNull []bool) (ix *denseIndex, chained bool) {
	lo, hi, valid := int64(0), int64(0), 0
	for i, k := range keys {
		if isNull != nil && isNull[i] {
			continue
		}
		if valid == 0 || k < lo {
			lo = k
		}
		if valid == 0 || k > hi {
			hi = k
		}
		valid++
	}
	if valid == 0 {
		return nil, false
	}
	span := uint64(hi) - uint64(lo) + 1 // wraps to 0 for the full int64 range
	if span == 0 || span > uint64(max(denseSlack*valid, denseMinSlots)) || span > denseMaxSlots {
		return nil, false
	}
	ix = &denseIndex{min: lo, heads: make([]int32, span)}
	for i, k := range keys {
		if isNull != nil && isNull[i] {
			continue
		}
		slot := &ix.heads[uint64(k)-uint64(lo)]
		if *slot != 0 {
			chained = true
		}
		next[i] = *slot - 1
		*slot = int32(i) + 1
	}
	return ix, chained
}

// lookup returns the head build row of key k's chain, or -1.
func (ix *denseIndex) lookup(k int64) int32 {
	if d := uint64(k) - uint64(ix.min); d < uint64(len(ix.heads)) {
		return ix.heads[d] - 1
	}
	return -1
}
