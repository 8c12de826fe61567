package ops

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/flightd/flightd/exec"
)

// RuntimeFilter is a run-time join filter (DuckDB's and DataFusion's dynamic join
// filters): once a hash join has built its hash table it publishes a summary of one
// integer-like build key (min/max, and an exact bitmap over a narrow range or a bloom
// filter), and a scan on the join's probe side drops the rows whose key cannot match
// before they are filtered, projected and probed. A row the filter drops could not have
// produced a join output row, so the planner attaches filters only where the join
// discards unmatched probe rows (exec/build/runtime_filter.go). Until it is published,
// and once disabled, a filter keeps every row: it is only ever an optimization.
type RuntimeFilter struct {
	key    int // the join key pair it summarizes
	set    atomic.Pointer[rfSet]
	claims atomic.Int32
	off    atomic.Bool
}

// NewRuntimeFilter returns an unpublished filter on the join's key pair number key.
func NewRuntimeFilter(key int) *RuntimeFilter { return &RuntimeFilter{key: key} }

// Claim registers a join operator that publishes into f. A filter claimed twice (one plan
// node built into two operators with different build sides) is disabled for good.
func (f *RuntimeFilter) Claim() {
	if f.claims.Add(1) > 1 {
		f.off.Store(true)
	}
}

// Disable turns f off for good: it keeps every row.
func (f *RuntimeFilter) Disable() { f.off.Store(true) }

// active returns the published set, or nil while f keeps every row.
func (f *RuntimeFilter) active() *rfSet {
	if f == nil || f.off.Load() {
		return nil
	}
	return f.set.Load()
}

// publish summarizes the build side's key columns (hashTable.keyCols); a key column that
// is not integer-like leaves f unpublished. The summary's memory is reserved from res (the
// join's reservation, freed when the join closes), after the join's own table: when the
// query's pool refuses the bitmap or bloom filter the filter keeps min/max only, and when
// it refuses the key copy the filter stays unpublished. A filter never fails a query.
func (f *RuntimeFilter) publish(keyCols []arrow.Array, res *exec.Reservation) {
	if f == nil || f.key >= len(keyCols) || !flatKeyType(keyCols[f.key].DataType()) {
		return
	}
	col := keyCols[f.key]
	keysBytes := int64(8 * col.Len()) // int64Values' copy, held while the set is built
	if res.TryGrow(keysBytes) != nil {
		return
	}
	defer res.Shrink(keysBytes)
	f.set.Store(newRFSet(col, func(n int64) bool { return res.TryGrow(n) == nil }))
}

// rfSet is a published summary of the build keys.
type rfSet struct {
	empty    bool // no non-NULL build key: no probe row matches
	min, max int64
	dense    []uint64 // bit v-min set for every build key v (narrow ranges)
	bloom    []uint64 // blocked bloom filter: one word per key, three bits in it
	shift    uint     // 64 - log2(len(bloom))
}

// Limits of the summaries: a dense bitmap spends at most rfDenseBits bits per build key
// and rfMaxDense bits in all, or any number per key up to rfDenseAlways bits in all (1 MiB:
// cache-resident, and a probe is one load instead of a hash and a load; TPC-H q10's 57k
// orders keys over 6M values); the bloom filter spends 16 bits per key, at most rfMaxBloom
// words. A larger build side is summarized by min/max only.
const (
	rfDenseBits   = 64
	rfDenseAlways = 1 << 23
	rfMaxDense    = 1 << 27
	rfMaxBloom    = 1 << 21
)

// newRFSet summarizes col; reserve is asked for the bytes of a bitmap or bloom filter
// before it is made, and the set keeps min/max only when it refuses.
func newRFSet(col arrow.Array, reserve func(int64) bool) *rfSet {
	vals := int64Values(col, nil)
	s := &rfSet{empty: true}
	n := 0
	for i, v := range vals {
		if col.IsNull(i) {
			continue
		}
		if s.empty || v < s.min {
			s.min = v
		}
		if s.empty || v > s.max {
			s.max = v
		}
		s.empty = false
		n++
	}
	if s.empty {
		return s
	}
	span := uint64(s.max) - uint64(s.min) // may exceed MaxInt64
	dense := span < rfDenseAlways || span < rfMaxDense && span/rfDenseBits < uint64(n)
	if dense && reserve(int64(span/64+1)*8) {
		s.fillDense(col, vals, span)
		return s
	}
	// A bloom filter when a bitmap does not suit the keys or could not be reserved.
	if n/4 <= rfMaxBloom {
		words := 1 << bits.Len(uint(max(n/4, 1)-1)) // a power of two ≥ n/4
		if reserve(int64(words) * 8) {
			s.fillBloom(col, vals, words)
		}
	}
	return s
}

// fillDense sets the bitmap of col's keys (vals), offsets from s.min over span.
func (s *rfSet) fillDense(col arrow.Array, vals []int64, span uint64) {
	s.dense = make([]uint64, span/64+1)
	for i, v := range vals {
		if !col.IsNull(i) {
			d := uint64(v - s.min)
			s.dense[d>>6] |= 1 << (d & 63)
		}
	}
}

// fillBloom sets a bloom filter of words words (a power of two) over col's keys (vals).
func (s *rfSet) fillBloom(col arrow.Array, vals []int64, words int) {
	s.bloom = make([]uint64, words)
	s.shift = uint(64 - bits.TrailingZeros(uint(words)))
	for i, v := range vals {
		if !col.IsNull(i) {
			h := rfHash(v)
			s.bloom[h>>s.shift&uint64(words-1)] |= bloomBits(h)
		}
	}
}

// rfHash mixes every bit of v into every bit of the hash (MurmurHash3's 64-bit finalizer):
// a multiplicative hash leaves the low bits of keys with many trailing zeros zero.
func rfHash(v int64) uint64 {
	h := uint64(v)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// bloomBits picks the three bits of a key's bloom word from the middle of its hash (the
// top bits choose the word).
func bloomBits(h uint64) uint64 {
	return 1<<(h>>16&63) | 1<<(h>>22&63) | 1<<(h>>28&63)
}

// selectRows appends to sel the rows of col whose key may match (never NULL ones); ok is
// false when col is not integer-like. When sel has no room for a whole batch (a late
// scan's prefilter passes nil), the rows are selected into a pooled buffer and only the
// kept ones, usually few, are appended to sel: growing sel to the batch's length cost a
// zeroed allocation of 4 bytes a row per batch.
func (s *rfSet) selectRows(col arrow.Array, sel []int32) (out []int32, ok bool) {
	if s.empty {
		return sel, true
	}
	if cap(sel)-len(sel) >= col.Len() {
		return s.selectInto(col, sel)
	}
	buf := getSel()
	kept, ok := s.selectInto(col, (*buf)[:0])
	if ok {
		sel = append(sel, kept...)
		if sel == nil {
			sel = []int32{} // none kept: an empty selection, not "no selection"
		}
	}
	putSel(buf, kept)
	return sel, ok
}

// selectInto is selectRows for a sel with room for col's rows.
func (s *rfSet) selectInto(col arrow.Array, sel []int32) (out []int32, ok bool) {
	switch c := col.(type) {
	case *array.Int64:
		return rfSelect(s, col, c.Int64Values(), sel), true
	case *array.Int32:
		return rfSelect(s, col, c.Int32Values(), sel), true
	case *array.Int16:
		return rfSelect(s, col, c.Int16Values(), sel), true
	case *array.Int8:
		return rfSelect(s, col, c.Int8Values(), sel), true
	case *array.Uint64:
		return rfSelect(s, col, c.Uint64Values(), sel), true
	case *array.Uint32:
		return rfSelect(s, col, c.Uint32Values(), sel), true
	case *array.Uint16:
		return rfSelect(s, col, c.Uint16Values(), sel), true
	case *array.Uint8:
		return rfSelect(s, col, c.Uint8Values(), sel), true
	case *array.Date32:
		return rfSelect(s, col, c.Date32Values(), sel), true
	case *array.Date64:
		return rfSelect(s, col, c.Date64Values(), sel), true
	case *array.Time32:
		return rfSelect(s, col, c.Time32Values(), sel), true
	case *array.Time64:
		return rfSelect(s, col, c.Time64Values(), sel), true
	case *array.Timestamp:
		return rfSelect(s, col, c.TimestampValues(), sel), true
	case *array.Duration:
		return rfSelect(s, col, c.DurationValues(), sel), true
	}
	return sel, false
}

// rfSelect is selectRows over the values of one column type, widened as int64Values does:
// one branch-free loop per kind of summary, then the NULL rows taken out.
func rfSelect[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](s *rfSet, col arrow.Array, vals []T, sel []int32) []int32 {
	base := len(sel)
	sel = slices.Grow(sel, len(vals))[:base+len(vals)]
	out := sel[base:]
	n := 0
	span := uint64(s.max) - uint64(s.min)
	switch {
	case s.dense != nil:
		for i, v := range vals {
			d := uint64(int64(v)) - uint64(s.min)
			out[n] = int32(i)
			if d <= span {
				n += int(s.dense[d>>6] >> (d & 63) & 1)
			}
		}
	case s.bloom != nil:
		mask := uint64(len(s.bloom) - 1)
		for i, v := range vals {
			out[n] = int32(i)
			if uint64(int64(v))-uint64(s.min) <= span {
				h := rfHash(int64(v))
				m := bloomBits(h)
				n += rfBit(s.bloom[h>>s.shift&mask]&m == m)
			}
		}
	default:
		for i, v := range vals {
			out[n] = int32(i)
			n += rfBit(uint64(int64(v))-uint64(s.min) <= span)
		}
	}
	out = out[:n]
	if col.NullN() > 0 {
		k := 0
		for _, r := range out {
			out[k] = r
			k += rfBit(col.IsValid(int(r)))
		}
		out = out[:k]
	}
	return sel[:base+len(out)]
}

// rfBit is 1 for true, 0 for false.
func rfBit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetRuntimeFilters makes the join publish onLeft (a filter on a scan of its left input)
// when it builds its hash table on its right input, and onRight when it builds on its
// left input (hash_join_flip.go); nil filters are skipped, the others claimed.
func (h *HashJoin) SetRuntimeFilters(onLeft, onRight *RuntimeFilter) {
	h.rfLeft, h.rfRight = claim(onLeft), claim(onRight)
}

// SetRuntimeFilters makes the shared build publish onLeft when it builds on the joins'
// right input and onRight when it is flipped; nil filters are skipped, the others claimed.
func (b *HashBuild) SetRuntimeFilters(onLeft, onRight *RuntimeFilter) {
	b.rfLeft, b.rfRight = claim(onLeft), claim(onRight)
}

func claim(f *RuntimeFilter) *RuntimeFilter {
	if f != nil {
		f.Claim()
	}
	return f
}

// FlatKeyType reports whether a join key of type t can have a run-time filter (the
// integer-like types of the flat hash index).
func FlatKeyType(t arrow.DataType) bool { return flatKeyType(t) }
