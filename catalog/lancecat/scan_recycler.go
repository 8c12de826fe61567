package lancecat

import (
	"math/bits"
	"os"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// preRecycleMax bounds the bytes of released buffers a tempAllocator keeps: the prefilter
// columns of a few batches.
const preRecycleMax = 4 << 20

// tempMinClass is the smallest size class a tempAllocator rounds up to (64 bytes).
const tempMinClass = 6

// poisonFreed is a non-empty FLIGHTD_POISON_FREED (make test sets it): tempAllocators fill
// buffers as they come back (0xDB) and reused buffers handed out unzeroed (0xCD), so that a
// reader of a released buffer, or of bytes a decoder did not write, sees junk in tests.
var poisonFreed = os.Getenv("FLIGHTD_POISON_FREED") != ""

// tempAllocator is a memory.Allocator for buffers that never leave their reader: the
// prefilter columns a late-materialization scan decodes in full for a batch and releases in
// the same call (scan_late.go). Released buffers are kept by power-of-two size class, up to
// max bytes, and handed out again, without the zeroing fresh Go memory costs when the caller
// overwrites them (AllocateUninit, which lanceformat/encoding's decoders ask for). Buffers
// are carved from the parent, which sees them as ordinary allocations; Close gives back the
// kept ones, and buffers freed after Close go straight back. Safe for concurrent use.
type tempAllocator struct {
	parent memory.Allocator
	max    int
	poison bool
	mu     sync.Mutex
	free   [64][][]byte     // per size class: released full-capacity buffers
	live   map[*byte][]byte // the full-capacity buffer of every allocation not freed yet
	held   int              // bytes in free
	closed bool
}

// newTempAllocator returns an empty tempAllocator over parent keeping at most max bytes.
func newTempAllocator(parent memory.Allocator, max int) *tempAllocator {
	return &tempAllocator{parent: parent, max: max, poison: poisonFreed, live: map[*byte][]byte{}}
}

// tempClass returns the log2 of the smallest power of two ≥ size (at least tempMinClass).
func tempClass(size int) int {
	if size <= 1<<tempMinClass {
		return tempMinClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate implements memory.Allocator: a zeroed buffer of len and cap size.
func (a *tempAllocator) Allocate(size int) []byte { return a.get(size, true) }

// AllocateUninit returns a buffer of size bytes whose contents are unspecified (poisoned
// when reused under FLIGHTD_POISON_FREED), for a caller that overwrites all of it.
func (a *tempAllocator) AllocateUninit(size int) []byte { return a.get(size, false) }

// uninitParent is a parent allocator that can skip zeroing.
type uninitParent interface {
	AllocateUninit(size int) []byte
}

// get returns a buffer of size bytes, zeroed when zero is set.
func (a *tempAllocator) get(size int, zero bool) []byte {
	if size <= 0 {
		return a.parent.Allocate(size)
	}
	c := tempClass(size)
	a.mu.Lock()
	full := a.take(c)
	a.mu.Unlock()
	switch {
	case full == nil:
		if u, ok := a.parent.(uninitParent); ok && !zero {
			full = u.AllocateUninit(1 << c)
		} else {
			full = a.parent.Allocate(1 << c)
		}
	case zero:
		clear(full)
	case a.poison:
		fillTemp(full, 0xCD)
	}
	a.mu.Lock()
	a.live[&full[0]] = full
	a.mu.Unlock()
	return full[:size:size]
}

// take pops a kept buffer of class c, or returns nil; a.mu is held.
func (a *tempAllocator) take(c int) []byte {
	n := len(a.free[c])
	if n == 0 {
		return nil
	}
	full := a.free[c][n-1]
	a.free[c][n-1] = nil
	a.free[c] = a.free[c][:n-1]
	a.held -= len(full)
	return full
}

// fillTemp sets every byte of b to v.
func fillTemp(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// Reallocate implements memory.Allocator.
func (a *tempAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && cap(b) > 0 {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free implements memory.Allocator: b is kept for reuse unless the allocator is full or
// closed (then it goes back to the parent); a buffer not from this allocator goes to the
// parent.
func (a *tempAllocator) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	full, ok := a.live[&b[:1][0]]
	if !ok {
		a.mu.Unlock()
		a.parent.Free(b)
		return
	}
	delete(a.live, &full[0])
	if a.closed || a.held+len(full) > a.max {
		a.mu.Unlock()
		a.parent.Free(full)
		return
	}
	if a.poison {
		fillTemp(full, 0xDB)
	}
	c := bits.Len(uint(len(full))) - 1
	a.free[c] = append(a.free[c], full)
	a.held += len(full)
	a.mu.Unlock()
}

// Close returns every kept buffer to the parent; buffers still out go back to it when
// freed. It is safe to call more than once.
func (a *tempAllocator) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	for c := range a.free {
		for _, b := range a.free[c] {
			a.parent.Free(b)
		}
		a.free[c] = nil
	}
	a.held = 0
}
