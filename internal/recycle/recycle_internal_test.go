package recycle

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestBufPool: freed buffers are reused (zeroed) by size class, the parent sees every byte
// back after close, and buffers freed after close go straight to the parent.
func TestBufPool(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := New(mem, 64<<20)
	held := 0
	cases := []struct {
		size, wantHeld int
	}{{1, 64}, {65, 128}, {1000, 1024}, {1 << 20, 1 << 20}}
	for _, c := range cases {
		b := p.Allocate(c.size)
		require.Len(t, b, c.size)
		require.Equal(t, c.size, cap(b), "arrow takes a buffer's capacity for usable length")
		for i := range b {
			b[i] = 0xAB
		}
		p.Free(b)
		again := p.Allocate(c.size)
		require.Equal(t, &b[:1][0], &again[:1][0], "size %d: the freed buffer is reused", c.size)
		require.Equal(t, make([]byte, c.size), again, "size %d: reused buffers are zeroed", c.size)
		p.Free(again)
		require.Equal(t, c.wantHeld, p.held-held, "size %d: its size class is kept", c.size)
		held = p.held
	}
	grown := p.Reallocate(100, p.Allocate(10))
	require.Len(t, grown, 100)
	shrunk := p.Reallocate(50, grown)
	require.Len(t, shrunk, 50)
	require.Equal(t, &grown[0], &shrunk[0], "shrinking keeps the buffer")
	require.Positive(t, mem.CurrentAlloc())
	p.Close()
	require.Equal(t, 128, mem.CurrentAlloc(), "only the live buffer is still allocated")
	p.Free(grown)
	require.Zero(t, mem.CurrentAlloc())
	other := mem.Allocate(10) // not the pool's: handed to the parent
	p.Free(other)
	require.Zero(t, mem.CurrentAlloc())
}

// uninitParent is a parent allocator that counts the unzeroed buffers asked of it.
type uninitParent struct {
	memory.Allocator
	uninit int
}

func (u *uninitParent) AllocateUninit(size int) []byte {
	u.uninit++
	return u.Allocate(size)
}

// TestBufPoolUninit: AllocateUninit hands a freed buffer out again without zeroing it
// (poisoned when poison is set), asks a parent that can for unzeroed fresh memory,
// and Allocate still zeroes what AllocateUninit's caller left behind; every byte goes back
// to the parent.
func TestBufPoolUninit(t *testing.T) {
	for _, poison := range []bool{false, true} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		parent := &uninitParent{Allocator: mem}
		p := New(parent, 64<<20)
		p.poison = poison
		b := p.AllocateUninit(1000)
		require.Len(t, b, 1000)
		require.Equal(t, 1, parent.uninit, "fresh memory is asked of the parent unzeroed")
		for i := range b {
			b[i] = 0xAB
		}
		p.Free(b)
		again := p.AllocateUninit(900)
		require.Equal(t, &b[0], &again[0], "the freed buffer is reused")
		want := byte(0xAB)
		if poison {
			want = 0xCD
		}
		require.Equal(t, bytes.Repeat([]byte{want}, 900), again, "poison=%v: reused as left, or poisoned", poison)
		p.Free(again)
		zeroed := p.Allocate(1000)
		require.Equal(t, &b[0], &zeroed[0])
		require.Equal(t, make([]byte, 1000), zeroed, "Allocate zeroes a buffer AllocateUninit's caller wrote")
		require.Equal(t, 1, parent.uninit, "Allocate reuses: nothing asked of the parent")
		p.Free(zeroed)
		p.Close()
		mem.AssertSize(t, 0)
	}
}
