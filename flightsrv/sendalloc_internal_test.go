package flightsrv

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// The send allocator reuses released buffers (zeroed), leaves buffers it did not hand out
// to mem, and gives everything back to mem on close.
func TestSendAllocator(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, a *sendAllocator)
	}{
		{"reuses a released buffer, zeroed", func(t *testing.T, a *sendAllocator) {
			b := a.Allocate(1000)
			for i := range b {
				b[i] = 0xAB
			}
			p := unsafe.SliceData(b)
			a.Free(b)
			c := a.Allocate(900)
			require.Len(t, c, 900)
			require.Same(t, p, unsafe.SliceData(c))
			require.Equal(t, make([]byte, 900), c)
			a.Free(c)
		}},
		{"does not reuse a buffer over twice the size", func(t *testing.T, a *sendAllocator) {
			b := a.Allocate(4096)
			p := unsafe.SliceData(b)
			a.Free(b)
			c := a.Allocate(100)
			require.NotSame(t, p, unsafe.SliceData(c))
			a.Free(c)
		}},
		{"reallocate within and beyond the buffer", func(t *testing.T, a *sendAllocator) {
			b := a.Allocate(256)
			copy(b, "abc")
			b = a.Reallocate(100, b)
			require.Equal(t, "abc", string(b[:3]))
			b = a.Reallocate(256, b)
			require.Len(t, b, 256)
			b = a.Reallocate(5000, b)
			require.Len(t, b, 5000)
			require.Equal(t, "abc", string(b[:3]))
			a.Free(b)
		}},
		{"foreign buffers go to mem", func(t *testing.T, a *sendAllocator) {
			b := a.mem.Allocate(64)
			b = a.Reallocate(128, b)
			require.Len(t, b, 128)
			a.Free(b)
			require.Empty(t, a.free)
		}},
		{"frees after close go straight back", func(t *testing.T, a *sendAllocator) {
			b := a.Allocate(512)
			a.close()
			a.Free(b)
			require.Empty(t, a.free)
			c := a.Allocate(64)
			a.Free(c)
		}},
		{"keeps at most maxSendFree", func(t *testing.T, a *sendAllocator) {
			var bs [][]byte
			for range maxSendFree + 5 {
				bs = append(bs, a.Allocate(128))
			}
			for _, b := range bs {
				a.Free(b)
			}
			require.Len(t, a.free, maxSendFree)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := newSendAllocator(mem)
			tc.run(t, a)
			a.close()
		})
	}
}
