package encoding

import (
	"math/bits"
	"sync"
)

// Variable-width and list builders keep their offsets as []int64 until Finish converts
// them into the Arrow offsets buffer. A scan builds one such slice per string column per
// batch (8 bytes a row), so allocating and zeroing it every time cost about a tenth of a
// full lineitem scan's decode CPU. Reserved offsets slices come from these pools, one per
// power-of-two capacity, and go back on Release.

// minPooledOffsets is the smallest reservation (in offsets) served from the pools; smaller
// ones are cheaper to allocate.
const minPooledOffsets = 1 << 10

// maxPooledClass bounds the pooled capacities at 2^maxPooledClass offsets (128 MiB).
const maxPooledClass = 24

var offsetsPools [maxPooledClass + 1]sync.Pool

// offsetsClass returns the pool class (log2 of the capacity) that holds n offsets, or -1
// when n is outside the pooled range.
func offsetsClass(n int) int {
	if n < minPooledOffsets {
		return -1
	}
	c := bits.Len(uint(n - 1))
	if c > maxPooledClass {
		return -1
	}
	return c
}

// getOffsets returns a slice with the contents of offs and room for n more offsets,
// taken from the pools when the size is pooled, and whether it came from them. Its
// spare capacity is not zeroed.
func getOffsets(offs []int64, n int) ([]int64, bool) {
	c := offsetsClass(len(offs) + n)
	if c < 0 {
		return append(offs[:len(offs):len(offs)], make([]int64, n)...)[:len(offs)], false
	}
	var s []int64
	if p, ok := offsetsPools[c].Get().(*[]int64); ok {
		s = (*p)[:0]
	} else {
		s = make([]int64, 0, 1<<c)
	}
	return append(s, offs...), true
}

// putOffsets returns a slice getOffsets handed out to its pool.
func putOffsets(offs []int64) {
	c := bits.Len(uint(cap(offs))) - 1
	if cap(offs) != 1<<c || offsetsClass(cap(offs)) != c {
		return
	}
	offs = offs[:0]
	offsetsPools[c].Put(&offs)
}
