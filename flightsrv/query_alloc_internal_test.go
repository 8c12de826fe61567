package flightsrv

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// The query allocator reuses released buffers of the same size class (zeroed, except
// through AllocateUninit), leaves buffers it did not hand out to mem, keeps at most
// maxRecycled bytes, and gives everything back to mem on close.
func TestQueryAllocator(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, a *queryAllocator)
	}{
		{"reuses a released buffer of the class, zeroed", func(t *testing.T, a *queryAllocator) {
			b := a.Allocate(1000)
			for i := range b {
				b[i] = 0xAB
			}
			p := unsafe.SliceData(b)
			a.Free(b)
			c := a.Allocate(600)
			require.Len(t, c, 600)
			require.Same(t, p, unsafe.SliceData(c))
			require.Equal(t, make([]byte, 600), c)
			a.Free(c)
		}},
		{"uninit reuse keeps the bytes", func(t *testing.T, a *queryAllocator) {
			b := a.Allocate(4096)
			b[0], b[4095] = 7, 9
			a.Free(b)
			c := a.AllocateUninit(4000)
			require.Same(t, unsafe.SliceData(b), unsafe.SliceData(c))
			require.Equal(t, byte(7), c[0])
			a.Free(c)
			d := a.AllocateUninit(100) // nothing of that class kept: fresh and zeroed
			require.Equal(t, make([]byte, 100), d)
			a.Free(d)
		}},
		{"another class is not reused", func(t *testing.T, a *queryAllocator) {
			b := a.Allocate(4096)
			p := unsafe.SliceData(b)
			a.Free(b)
			c := a.Allocate(2048)
			require.NotSame(t, p, unsafe.SliceData(c))
			a.Free(c)
		}},
		{"reallocate within and beyond the buffer, grown bytes zero", func(t *testing.T, a *queryAllocator) {
			b := a.AllocateUninit(256)
			for i := range b {
				b[i] = 0xFF
			}
			copy(b, "abc")
			b = a.Reallocate(100, b)
			require.Equal(t, "abc", string(b[:3]))
			b = a.Reallocate(200, b)
			require.Len(t, b, 200)
			require.Equal(t, make([]byte, 100), b[100:])
			b = a.Reallocate(5000, b)
			require.Len(t, b, 5000)
			require.Equal(t, "abc", string(b[:3]))
			require.Equal(t, make([]byte, 4800), b[200:])
			a.Free(b)
		}},
		{"foreign buffers go to mem", func(t *testing.T, a *queryAllocator) {
			b := a.mem.Allocate(64)
			b = a.Reallocate(128, b)
			require.Len(t, b, 128)
			a.Free(b)
			require.Zero(t, a.kept)
		}},
		{"frees after close go straight back", func(t *testing.T, a *queryAllocator) {
			b := a.Allocate(512)
			a.close()
			a.Free(b)
			require.Zero(t, a.kept)
			c := a.Allocate(100)
			a.Free(c)
			require.Zero(t, a.kept)
		}},
		{"poison fills kept and unzeroed buffers", func(t *testing.T, a *queryAllocator) {
			a.poison = true
			b := a.Allocate(4096)
			a.Free(b)
			require.Equal(t, bytes.Repeat([]byte{0xDB}, 4096), b[:4096:4096], "kept buffer poisoned on Free")
			c := a.AllocateUninit(4000)
			require.Equal(t, bytes.Repeat([]byte{0xCD}, 4000), c)
			d := a.Allocate(3000) // zeroed whatever the poison
			require.Equal(t, make([]byte, 3000), d)
			a.Free(c)
			a.Free(d)
		}},
		{"keeps at most maxRecycled bytes", func(t *testing.T, a *queryAllocator) {
			var bs [][]byte
			for range maxRecycled/(1<<20) + 3 {
				bs = append(bs, a.Allocate(1<<20))
			}
			for _, b := range bs {
				a.Free(b)
			}
			require.Equal(t, maxRecycled, a.kept)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			a := newQueryAllocator(mem)
			a.poison = false // each case sets what it tests, whatever FLIGHTD_POISON_FREED says
			tc.run(t, a)
			a.close()
		})
	}
}

// Only scans, filters, projections and limits count as streaming plans.
func TestStreamsOnly(t *testing.T) {
	v := plan.NewValues(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil), nil)
	require.False(t, streamsOnly(v))
	require.False(t, streamsOnly(&plan.Limit{Input: v, Count: 1}))
	require.True(t, streamsOnly(&plan.Limit{Input: &plan.Scan{}, Count: 1}))
	require.False(t, streamsOnly(&plan.Sort{Input: &plan.Scan{}}))
}
