package file

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Page bytes are read into buffers from a pool of power-of-two size classes and go back
// to it when the call that read them (one ReadRange or Take) returns: decoders copy out of
// page bytes (into builders, whose buffers come from the caller's allocator or the Go
// heap), nothing a call returns or a Cursor keeps points into them, so a scan re-reads
// into the same few buffers instead of allocating and zeroing fresh ones per read.
const (
	minPooledRead = 512 // smaller reads get a plain allocation
	minClassShift = 12  // 4 KiB: the smallest class
	maxClassShift = 26  // 64 MiB: larger reads are not pooled
	numClasses    = maxClassShift - minClassShift + 1
	poisonByte    = byte(0xDB) // written over returned buffers in poison mode (tests)
)

// pagePools holds one pool per size class; class c holds buffers of 1<<(c+minClassShift)
// bytes, as *[]byte so Put does not allocate.
var pagePools [numClasses]sync.Pool

// poisonPages, when set, makes putPage overwrite a buffer with poisonByte and drop it
// instead of pooling it, so a decoded array still pointing into page bytes reads poison
// (set by the package's tests).
var poisonPages atomic.Bool

// classOf returns the size class holding n bytes, or -1 if n is not pooled.
func classOf(n int) int {
	if n < minPooledRead || n > 1<<maxClassShift {
		return -1
	}
	shift := max(bits.Len(uint(n-1)), minClassShift)
	return shift - minClassShift
}

// getPage returns a buffer of n bytes (contents undefined) and the handle to give back to
// putPage.
func getPage(n int) ([]byte, *[]byte) {
	c := classOf(n)
	if c < 0 {
		b := make([]byte, n)
		return b, &b
	}
	if p, ok := pagePools[c].Get().(*[]byte); ok {
		return (*p)[:n], p
	}
	b := make([]byte, 1<<(c+minClassShift))
	return b[:n], &b
}

// putPage gives back a buffer getPage handed out: to its pool if it has a size class.
// The caller must not use the buffer afterwards.
func putPage(p *[]byte) {
	b := (*p)[:cap(*p)]
	if len(b) == 0 {
		return
	}
	if poisonPages.Load() {
		b[0] = poisonByte // doubling copies: fast under the race detector, unlike a byte loop
		for i := 1; i < len(b); i *= 2 {
			copy(b[i:], b[:i])
		}
		return
	}
	if c := classOf(len(b)); c >= 0 && len(b) == 1<<(c+minClassShift) {
		*p = b
		pagePools[c].Put(p)
	}
}
