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
// heads[k-min] (0: no row). When keys repeat it also lists the build rows grouped by key
// (a counting sort): key k's rows are perm[starts[k-min]:starts[k-min+1]], in row order,
// so that probes read a key's rows from consecutive memory instead of following next
// through the whole build side (TPC-H q13: 1.5M orders on 150k customer keys).
type denseIndex struct {
	min    int64
	heads  []int32
	starts []int32 // len(heads)+1 offsets into perm; nil without repeated keys
	perm   []int32
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
	if chained {
		ix.groupRows(keys, isNull, valid)
	}
	return ix, chained
}

// groupRows fills starts and perm from the valid rows' keys (valid of them).
func (ix *denseIndex) groupRows(keys []int64, isNull []bool, valid int) {
	ix.starts = make([]int32, len(ix.heads)+1)
	for i, k := range keys {
		if isNull == nil || !isNull[i] {
			ix.starts[uint64(k)-uint64(ix.min)+1]++
		}
	}
	for d := 1; d < len(ix.starts); d++ {
		ix.starts[d] += ix.starts[d-1]
	}
	ix.perm = make([]int32, valid)
	fill := append([]int32(nil), ix.starts[:len(ix.heads)]...)
	for i, k := range keys {
		if isNull != nil && isNull[i] {
			continue
		}
		d := uint64(k) - uint64(ix.min)
		ix.perm[fill[d]] = int32(i)
		fill[d]++
	}
}

// lookupRun returns the positions [start, end) in perm of key k's build rows; start is -1
// when there are none.
func (ix *denseIndex) lookupRun(k int64) (start, end int32) {
	if d := uint64(k) - uint64(ix.min); d < uint64(len(ix.heads)) {
		if start, end = ix.starts[d], ix.starts[d+1]; start < end {
			return start, end
		}
	}
	return -1, -1
}

// bytes is the memory the index holds.
func (ix *denseIndex) bytes() int64 {
	return int64(len(ix.heads)+len(ix.starts)+len(ix.perm)) * 4
}

// runPairs is hashSource.pairs over a dense index with grouped rows: s.heads holds each
// left row's start in perm (-1: none) and s.ends its end.
func (s *hashSource) runPairs(perm []int32, l, r []int32, limit int) ([]int32, []int32, bool) {
	n := len(s.heads)
	for s.row < n {
		for s.pos >= 0 {
			if len(l) >= limit {
				return l, r, false
			}
			l, r = append(l, int32(s.row)), append(r, perm[s.pos])
			s.pos++
			if s.firstOnly || s.pos >= s.ends[s.row] {
				s.pos = -1
			}
		}
		s.row++
		if s.row < n {
			s.pos = s.heads[s.row]
		}
	}
	return l, r, true
}

// probeDense looks the keys up in the dense index d (n rows, NULL flags set).
func (s *hashSource) probeDense(d *denseIndex, n int) {
	keys := s.ikeys[0][:n]
	if d.perm == nil {
		for i, k := range keys {
			s.heads[i] = -1
			if !s.null[i] {
				s.heads[i] = d.lookup(k)
			}
		}
		return
	}
	s.ends = resetInt32s(s.ends, n)
	for i, k := range keys {
		s.heads[i], s.ends[i] = -1, -1
		if !s.null[i] {
			s.heads[i], s.ends[i] = d.lookupRun(k)
		}
	}
}

// lookup returns the head build row of key k's chain, or -1.
func (ix *denseIndex) lookup(k int64) int32 {
	if d := uint64(k) - uint64(ix.min); d < uint64(len(ix.heads)) {
		return ix.heads[d] - 1
	}
	return -1
}
