package recycle

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestRecyclerReuse(t *testing.T) {
	tests := []struct {
		name       string
		first, sec int
		reused     bool
	}{
		{"same size", 1000, 1000, true},
		{"same class", 1000, 700, true},
		{"tiny", 3, 60, true},
		{"other class", 1000, 3000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := New(mem, 1<<20)
			a.poison = false
			b := a.AllocateUninit(tc.first)
			require.Len(t, b, tc.first)
			b[0] = 7
			a.Free(b)
			require.Equal(t, 1<<sizeClass(tc.first), mem.CurrentAlloc())
			c := a.AllocateUninit(tc.sec)
			require.Len(t, c, tc.sec)
			require.Equal(t, tc.reused, &c[0] == &b[0])
			if tc.reused {
				require.Equal(t, byte(7), c[0], "AllocateUninit does not zero without poison")
			}
			a.Free(c)
			z := a.Allocate(tc.sec)
			require.Equal(t, make([]byte, tc.sec), z, "Allocate zeroes reused buffers")
			a.Free(z)
			a.Close()
		})
	}
}

func TestRecyclerBound(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := New(mem, 4096)
	bufs := make([][]byte, 5)
	for i := range bufs {
		bufs[i] = a.Allocate(1024)
	}
	require.Equal(t, 5*1024, mem.CurrentAlloc())
	for _, b := range bufs {
		a.Free(b)
	}
	require.Equal(t, 4096, a.held)
	require.Equal(t, 4096, mem.CurrentAlloc(), "the fifth buffer went back to the parent")
	a.Close()
	require.Equal(t, 0, a.held)
}

func TestRecyclerPoison(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := New(mem, 1<<20)
	a.poison = true
	b := a.AllocateUninit(100)
	for i := range b {
		b[i] = 1
	}
	a.Free(b)
	require.Equal(t, byte(0xDB), b[0], "freed buffers are poisoned")
	require.Equal(t, byte(0xDB), b[99])
	c := a.AllocateUninit(100)
	require.Equal(t, &b[0], &c[0])
	require.Equal(t, byte(0xCD), c[0], "reused uninitialised buffers are poisoned")
	require.Equal(t, byte(0xCD), c[99])
	a.Free(c)
	a.Close()
}

func TestRecyclerCloseWithBuffersOut(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := New(mem, 1<<20)
	kept := a.Allocate(500)
	a.Free(a.Allocate(500))
	require.Equal(t, 1024, mem.CurrentAlloc())
	a.Close()
	require.Equal(t, 512, mem.CurrentAlloc(), "Close returns the kept buffers")
	a.Free(kept)
	require.Equal(t, 0, mem.CurrentAlloc(), "a buffer freed after Close goes to the parent")
	foreign := mem.Allocate(10)
	a.Free(foreign) // not from a: straight to the parent
	require.Equal(t, 0, mem.CurrentAlloc())
}

func TestRecyclerReallocate(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := New(mem, 1<<20)
	b := a.Allocate(10)
	copy(b, "0123456789")
	b = a.Reallocate(5, b)
	require.Equal(t, "01234", string(b))
	b = a.Reallocate(5000, b)
	require.Len(t, b, 5000)
	require.Equal(t, "01234", string(b[:5]), "the live bytes move to the new buffer")
	a.Free(b)
	a.Close()
}

func TestRecyclerConcurrent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := New(mem, 64<<10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := 1 + (g*131+i*17)%5000
				b := a.AllocateUninit(n)
				for j := range b {
					b[j] = byte(g)
				}
				for j := range b {
					if b[j] != byte(g) {
						t.Errorf("buffer shared between goroutines")
						return
					}
				}
				a.Free(b)
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, a.held, 64<<10)
	a.Close()
}
