package flightsrv

import (
	"math/bits"
	"os"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/planner/plan"
)

// maxRecycled bounds the bytes of released buffers a queryAllocator keeps for reuse.
const maxRecycled = 32 << 20

// poisonRecycled is a non-empty FLIGHTD_POISON_FREED (make test sets it): the servers'
// query allocators then poison (queryAllocator.poison) so that a reader of a released
// buffer, or of bytes a decoder did not write, sees garbage in the results the integration
// tests compare, instead of bytes that happen to still be right.
var poisonRecycled = os.Getenv("FLIGHTD_POISON_FREED") != ""

// queryAllocator is the allocator of one query's result stream: the IPC writer's, and the
// executor's when the plan only streams (streamsOnly). Every buffer it hands out comes from
// mem rounded up to a power of two; released ones are kept, by size class, and handed out
// again, so a long result does not allocate, zero and collect fresh memory for every batch
// (decoders that overwrite what they are given ask for AllocateUninit and skip the zeroing
// too). Buffers all go back to mem on close, so mem's accounting sees them as ordinary
// allocations. It is safe for concurrent use.
//
// Reuse is safe because a buffer comes back only through Free, which Arrow calls when the
// last reference is released: the wire sender's payloads are released once gRPC has copied
// their bytes into its write buffer (sendcodec.go).
type queryAllocator struct {
	mem    memory.Allocator
	mu     sync.Mutex
	orig   map[*byte][]byte // handed-out buffers by address: the slice mem returned
	free   [64][][]byte     // released buffers (as mem returned them) by size class
	kept   int              // bytes in free
	closed bool
	poison bool // fill kept buffers with 0xDB as they come back, AllocateUninit ones with 0xCD
}

func newQueryAllocator(mem memory.Allocator) *queryAllocator {
	return &queryAllocator{mem: mem, orig: map[*byte][]byte{}, poison: poisonRecycled}
}

// sizeClass is the power of two a buffer of size bytes is rounded up to.
func sizeClass(size int) int { return bits.Len(uint(size - 1)) }

// Allocate returns a zeroed buffer of size bytes.
func (a *queryAllocator) Allocate(size int) []byte {
	b, reused := a.get(size)
	if reused {
		clear(b)
	}
	return b
}

// AllocateUninit returns a buffer of size bytes whose contents are unspecified, for a
// caller that overwrites all of it (lanceformat/encoding's decoders ask for it).
func (a *queryAllocator) AllocateUninit(size int) []byte {
	b, _ := a.get(size)
	if a.poison {
		fill(b, 0xCD)
	}
	return b
}

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// get returns a buffer of size bytes, reused (contents unspecified) or new from mem (zeroed).
func (a *queryAllocator) get(size int) ([]byte, bool) {
	if size <= 0 {
		return a.mem.Allocate(size), false
	}
	c := sizeClass(size)
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := len(a.free[c]); n > 0 {
		b := a.free[c][n-1]
		a.free[c] = a.free[c][:n-1]
		a.kept -= len(b)
		out := b[:size]
		a.orig[unsafe.SliceData(out)] = b
		return out, true
	}
	if a.closed { // not tracked: Free gives it straight back to mem, as allocated
		return a.mem.Allocate(size), false
	}
	b := a.mem.Allocate(1 << c)
	a.orig[unsafe.SliceData(b)] = b
	return b[:size], false
}

// Reallocate grows or shrinks b to size bytes, keeping its contents; grown bytes are zero.
// Buffers a did not hand out are mem's to reallocate.
func (a *queryAllocator) Reallocate(size int, b []byte) []byte {
	o, ok := a.original(b)
	if !ok {
		return a.mem.Reallocate(size, b)
	}
	if size <= len(o) {
		if size > len(b) {
			clear(o[len(b):size])
		}
		return o[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// original returns the slice mem returned for b, if a handed b out.
func (a *queryAllocator) original(b []byte) ([]byte, bool) {
	if cap(b) == 0 {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.orig[unsafe.SliceData(b)]
	return o, ok
}

// Free keeps b for reuse, or gives it back to mem once a is closed or keeps maxRecycled.
func (a *queryAllocator) Free(b []byte) {
	if cap(b) == 0 {
		a.mem.Free(b)
		return
	}
	a.mu.Lock()
	o, ok := a.orig[unsafe.SliceData(b)]
	if ok {
		delete(a.orig, unsafe.SliceData(b))
	} else {
		o = b
	}
	keep := ok && !a.closed && a.kept+len(o) <= maxRecycled
	if keep {
		if a.poison {
			fill(o, 0xDB)
		}
		c := sizeClass(len(o))
		a.free[c] = append(a.free[c], o)
		a.kept += len(o)
	}
	a.mu.Unlock()
	if !keep {
		a.mem.Free(o)
	}
}

// close gives the kept buffers back to mem; buffers freed later go straight back too.
func (a *queryAllocator) close() {
	a.mu.Lock()
	free := a.free
	a.free, a.kept, a.closed = [64][][]byte{}, 0, true
	a.mu.Unlock()
	for _, class := range free {
		for _, b := range class {
			a.mem.Free(b)
		}
	}
}

// streamsOnly reports whether a plan only streams batches through (scans, filters,
// projections, limits): no operator keeps a batch, or bytes of one, after passing it on,
// so buffers the stream releases can be reused for the next batches. Operators that
// build state (joins, aggregates, sorts, ...) allocate from the server's allocator.
func streamsOnly(n plan.Node) bool {
	switch n.(type) {
	case *plan.Scan, *plan.Filter, *plan.Project, *plan.Limit:
	default:
		return false
	}
	for _, c := range n.Children() {
		if !streamsOnly(c) {
			return false
		}
	}
	return true
}
