// Package memtest holds Arrow allocators for tests that check buffer ownership.
//
// Poison is an allocator that never reuses memory and overwrites every buffer it is given
// back (Free, or the old buffer of a Reallocate) with PoisonByte. An array that still
// reads a buffer after its owner released it then reads 0xDB bytes instead of the values
// it had, so a differential test fails where the plain Go allocator (whose Free does
// nothing) would hide the bug. Wrap it in a memory.CheckedAllocator to check sizes too:
//
//	mem := memory.NewCheckedAllocator(memtest.NewPoison())
//	defer mem.AssertSize(t, 0)
package memtest

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// PoisonByte is the value Poison writes over released memory.
const PoisonByte = 0xDB

// alignment is the address alignment of Poison's buffers (Arrow's recommended 64 bytes).
const alignment = 64

// Poison is a memory.Allocator that poisons released buffers and never reuses them.
// Reallocate always moves the buffer (and poisons the old one), so code that keeps a slice
// of a buffer across a resize is caught too. It is safe for concurrent use.
type Poison struct {
	mu   sync.Mutex
	live map[*byte]int // live buffers by address: their size
	errs []string      // frees of buffers Poison does not hold (double or foreign frees)
}

// NewPoison returns an empty Poison allocator.
func NewPoison() *Poison { return &Poison{live: map[*byte]int{}} }

// Allocate returns size zeroed bytes, 64-byte aligned, in memory used for nothing else.
func (p *Poison) Allocate(size int) []byte {
	if size <= 0 {
		return []byte{}
	}
	raw := make([]byte, size+alignment)
	shift := (alignment - int(uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%alignment)) % alignment
	b := raw[shift : shift+size : shift+size]
	p.mu.Lock()
	p.live[unsafe.SliceData(b)] = size
	p.mu.Unlock()
	return b
}

// Reallocate returns a new buffer of size bytes holding b's first bytes, and poisons b.
func (p *Poison) Reallocate(size int, b []byte) []byte {
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free poisons b. Freeing a buffer Poison did not hand out, or one already freed, is
// recorded (see Errors) rather than panicking.
func (p *Poison) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	addr := unsafe.SliceData(b)
	p.mu.Lock()
	size, ok := p.live[addr]
	if ok {
		delete(p.live, addr)
	} else {
		p.errs = append(p.errs, fmt.Sprintf("free of %d bytes at %p: not a live buffer of this allocator", cap(b), addr))
	}
	p.mu.Unlock()
	if !ok {
		return
	}
	Fill(b[:size:size], PoisonByte)
}

// Fill sets every byte of b to v with doubling copies (memmove), which stays fast under
// the race detector, where a byte loop is instrumented byte by byte.
func Fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for i := 1; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}

// Errors returns the bad frees seen so far.
func (p *Poison) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

// Live returns the number of buffers handed out and not yet freed.
func (p *Poison) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live)
}

var _ memory.Allocator = (*Poison)(nil)
