// Package recycle provides Recycler, a memory.Allocator that keeps the buffers its users free
// and hands them out again, for pipelines that allocate and release buffers of similar sizes
// for every batch (the executor's aggregates, the Lance reader's late-materialization
// temporaries).
package recycle

import (
	"math/bits"
	"os"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Recycler is a memory.Allocator that keeps freed buffers for reuse, by power-of-two size
// class, up to a bound, instead of returning them to its parent, so that the arrays a
// pipeline allocates and releases for every batch (decoded columns, decimal products,
// comparison bitmaps) cost neither a fresh allocation, nor the collector's work, nor the
// parent's bookkeeping. Its buffers are rounded up to a power of two, so batches that
// outlive a batch's work (a join's table, a sort) should not come from one. Reused buffers are
// zeroed, as fresh Go memory is, except for AllocateUninit's callers (the decoders, which
// overwrite them). Buffers freed after Close go back to the parent, so arrays that outlive
// the recycler's owner are still safe to release. Safe for concurrent use.
type Recycler struct {
	parent memory.Allocator
	max    int // bytes kept at most
	mu     sync.Mutex
	free   [64][][]byte     // per size class (log2 of the capacity): full-capacity buffers
	live   map[*byte][]byte // the full-capacity buffer of every allocation not freed yet
	held   int              // bytes in free
	closed bool
	// poison fills reused buffers handed out by AllocateUninit with 0xCD, so that a reader
	// of bytes its caller did not overwrite sees junk in tests (FLIGHTD_POISON_FREED)
	poison bool
}

// minPoolClass is the smallest size class (64 bytes).
const minPoolClass = 6

// New returns an empty recycler over parent that keeps at most max bytes of freed buffers.
func New(parent memory.Allocator, max int) *Recycler {
	return &Recycler{parent: parent, max: max, live: map[*byte][]byte{}, poison: poisonUninit}
}

// Owns reports whether b, as Allocate handed it out, is r's and nobody freed it yet.
func (p *Recycler) Owns(b []byte) bool {
	if cap(b) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.live[&b[:1][0]]
	return ok
}

// Held returns the bytes of freed buffers r keeps for reuse.
func (p *Recycler) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// sizeClass returns the log2 of the smallest power of two ≥ size (at least minPoolClass).
func sizeClass(size int) int {
	if size <= 1<<minPoolClass {
		return minPoolClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate implements memory.Allocator: a zeroed buffer of len and cap size (arrow's
// buffers take the capacity for usable length), carved from a power-of-two buffer.
func (p *Recycler) Allocate(size int) []byte {
	return p.allocate(size, true)
}

// AllocateUninit is Allocate for a caller that overwrites the whole buffer before anyone
// reads it (lanceformat/encoding's decoders ask for it): a reused buffer is not zeroed
// (poisoned instead when poison is set), and a fresh one is asked of the parent unzeroed
// when the parent can.
func (p *Recycler) AllocateUninit(size int) []byte {
	return p.allocate(size, false)
}

// uninitAllocator is an allocator that can skip zeroing (AllocateUninit).
type uninitAllocator interface {
	AllocateUninit(size int) []byte
}

// poisonUninit is a non-empty FLIGHTD_POISON_FREED (make test sets it): new recyclers
// poison.
var poisonUninit = os.Getenv("FLIGHTD_POISON_FREED") != ""

// allocate returns a buffer of size bytes, zeroed when zero is set.
func (p *Recycler) allocate(size int, zero bool) []byte {
	if size == 0 {
		return p.parent.Allocate(0)
	}
	c := sizeClass(size)
	p.mu.Lock()
	var full []byte
	if n := len(p.free[c]); n > 0 {
		full = p.free[c][n-1]
		p.free[c][n-1] = nil
		p.free[c] = p.free[c][:n-1]
		p.held -= len(full)
		switch {
		case zero:
			clear(full)
		case p.poison:
			fillBytes(full, 0xCD)
		}
	} else {
		p.mu.Unlock()
		if u, ok := p.parent.(uninitAllocator); ok && !zero {
			full = u.AllocateUninit(1 << c)
		} else {
			full = p.parent.Allocate(1 << c)
		}
		p.mu.Lock()
	}
	p.live[&full[0]] = full
	p.mu.Unlock()
	return full[:size:size]
}

// fillBytes sets every byte of b to v.
func fillBytes(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// Reallocate implements memory.Allocator.
func (p *Recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) && cap(b) > 0 {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free implements memory.Allocator: it keeps b for reuse unless the pool is full or closed.
func (p *Recycler) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	p.mu.Lock()
	full, ok := p.live[&b[:1][0]]
	if !ok { // not from this pool
		p.mu.Unlock()
		p.parent.Free(b)
		return
	}
	delete(p.live, &full[0])
	c := bits.Len(uint(len(full))) - 1
	if p.closed || p.held+len(full) > p.max {
		p.mu.Unlock()
		p.parent.Free(full)
		return
	}
	if p.poison { // a reader of a released batch sees junk in tests
		fillBytes(full, 0xDB)
	}
	p.free[c] = append(p.free[c], full)
	p.held += len(full)
	p.mu.Unlock()
}

// Close returns every kept buffer to the parent; later frees go straight to it. It is safe
// to call more than once.
func (p *Recycler) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c := range p.free {
		for _, b := range p.free[c] {
			p.parent.Free(b)
		}
		p.free[c] = nil
	}
	p.held = 0
}
