package memtest_test

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
)

func TestPoison(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, p *memtest.Poison)
	}{
		{"allocate is zeroed, aligned and fresh", func(t *testing.T, p *memtest.Poison) {
			a, b := p.Allocate(100), p.Allocate(100)
			require.Len(t, a, 100)
			require.Equal(t, make([]byte, 100), a)
			require.Zero(t, uintptr(unsafe.Pointer(unsafe.SliceData(a)))%64)
			require.NotSame(t, unsafe.SliceData(a), unsafe.SliceData(b))
			require.Equal(t, 2, p.Live())
			p.Free(a)
			p.Free(b)
			require.Zero(t, p.Live())
		}},
		{"free poisons the whole buffer, even a shortened slice of it", func(t *testing.T, p *memtest.Poison) {
			a := p.Allocate(64)
			view := a[:64]
			for i := range a {
				a[i] = byte(i)
			}
			p.Free(a[:10])
			for i, v := range view {
				require.Equal(t, byte(memtest.PoisonByte), v, "byte %d", i)
			}
		}},
		{"reallocate moves, keeps the prefix and poisons the old buffer", func(t *testing.T, p *memtest.Poison) {
			a := p.Allocate(8)
			copy(a, "abcdefgh")
			b := p.Reallocate(4, a)
			require.Equal(t, "abcd", string(b))
			require.NotSame(t, unsafe.SliceData(a), unsafe.SliceData(b))
			require.Equal(t, []byte{0xDB, 0xDB, 0xDB, 0xDB, 0xDB, 0xDB, 0xDB, 0xDB}, a)
			c := p.Reallocate(16, b)
			require.Equal(t, "abcd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", string(c))
			p.Free(c)
			require.Zero(t, p.Live())
		}},
		{"double and foreign frees are recorded", func(t *testing.T, p *memtest.Poison) {
			a := p.Allocate(8)
			p.Free(a)
			p.Free(a)
			p.Free(make([]byte, 3))
			p.Free(nil)
			require.Len(t, p.Errors(), 2)
			require.Contains(t, p.Errors()[0], "not a live buffer")
		}},
		{"zero-size allocations are not tracked", func(t *testing.T, p *memtest.Poison) {
			a := p.Allocate(0)
			require.Empty(t, a)
			p.Free(a)
			require.Zero(t, p.Live())
			require.Empty(t, p.Errors())
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, memtest.NewPoison()) })
	}
}

// TestPoisonExposesUseAfterRelease shows what the allocator is for: a string array whose
// data buffer is released while the array still uses it reads poison, not its values.
func TestPoisonExposesUseAfterRelease(t *testing.T) {
	p := memtest.NewPoison()
	data := memory.NewResizableBuffer(p)
	data.Resize(10)
	copy(data.Bytes(), "helloworld")
	offs := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 5, 10}))
	d := array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, offs, data}, nil, 0, 0)
	arr := array.NewStringData(d)
	d.Release()
	require.Equal(t, "world", arr.Value(1))
	data.Release() // our own reference: fine, the array still holds one
	require.Equal(t, "world", arr.Value(1))
	require.Equal(t, 1, p.Live())
	data.Release() // an early release of the array's reference
	require.Zero(t, p.Live())
	require.Equal(t, "\xdb\xdb\xdb\xdb\xdb", arr.Value(1))
}

func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 64, 1000} {
		b := make([]byte, n+1)
		memtest.Fill(b[:n], 7)
		for i, v := range b[:n] {
			require.Equal(t, byte(7), v, "n %d byte %d", n, i)
		}
		require.Zero(t, b[n], "n %d: the byte after the slice is untouched", n)
	}
}

func TestNewCheckedIsChecked(t *testing.T) {
	mem := memtest.NewChecked(t)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(100)
	require.Equal(t, 128, mem.CurrentAlloc())
	buf.Release()
	mem.AssertSize(t, 0)
}
