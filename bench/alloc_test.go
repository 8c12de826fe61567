package bench

import (
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sizeAllocator is the Go allocator, as `flightd serve` uses, counting the bytes it holds
// so that benchmarks still detect leaks. memory.CheckedAllocator records the call stack of
// every allocation, which costs the server more than some of the queries measured here.
type sizeAllocator struct {
	memory.Allocator
	size atomic.Int64
}

// newSizeAllocator returns a counting Go allocator.
func newSizeAllocator() *sizeAllocator {
	return &sizeAllocator{Allocator: memory.NewGoAllocator()}
}

// Allocate implements memory.Allocator.
func (a *sizeAllocator) Allocate(n int) []byte {
	a.size.Add(int64(n))
	return a.Allocator.Allocate(n)
}

// Reallocate implements memory.Allocator.
func (a *sizeAllocator) Reallocate(n int, b []byte) []byte {
	a.size.Add(int64(n - len(b)))
	return a.Allocator.Reallocate(n, b)
}

// Free implements memory.Allocator.
func (a *sizeAllocator) Free(b []byte) {
	a.size.Add(-int64(len(b)))
	a.Allocator.Free(b)
}

// CurrentAlloc is the number of bytes the allocator holds.
func (a *sizeAllocator) CurrentAlloc() int { return int(a.size.Load()) }

// AssertSize fails tb when the allocator does not hold exactly want bytes (a leak when
// want is 0), as memory.CheckedAllocator's AssertSize does.
func (a *sizeAllocator) AssertSize(tb testing.TB, want int) {
	tb.Helper()
	if got := a.size.Load(); got != int64(want) {
		tb.Errorf("flightd holds %d bytes of Arrow buffers, want %d (a leak)", got, want)
	}
}
