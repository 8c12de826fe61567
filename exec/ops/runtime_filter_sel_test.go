package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestRuntimeFilterSelectBuffers: selectRows keeps the same rows whether sel has room for
// the batch (selected in place) or not (selected into a pooled buffer, the kept rows
// appended): nil, a short prefix and a roomy buffer, for dense, bloom and min/max summaries,
// with NULLs, several batch sizes, and a batch of which no row is kept (an empty, non-nil
// selection, never "no selection").
func TestRuntimeFilterSelectBuffers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		name   string
		keys   int
		spread int64
		kind   string
	}{
		{"dense", 400, 1, "dense"},
		{"bloom", 3000, 1_000_003, "bloom"},
		{"minmax", 3000, 1_000_003, "minmax"}, // the reservation refused: min/max only
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c.keys), 9))
		bv := make([]int64, c.keys)
		for i := range bv {
			bv[i] = int64(rng.IntN(c.keys*4)+c.keys) * c.spread
		}
		build := rfColumn(mem, bv, make([]bool, len(bv)))
		s := newRFSet(build, func(int64) bool { return c.kind != "minmax" })
		build.Release()
		require.Equal(t, c.kind == "dense", s.dense != nil, c.name)
		require.Equal(t, c.kind == "bloom", s.bloom != nil, c.name)
		for _, n := range []int{1, 7, 1000, 5000} {
			pv, pn := make([]int64, n), make([]bool, n)
			for i := range pv {
				pv[i] = int64(rng.IntN(c.keys*8)) * c.spread
				pn[i] = rng.IntN(6) == 0
			}
			probe := rfColumn(mem, pv, pn)
			want, ok := s.selectRows(probe, make([]int32, 0, n))
			require.True(t, ok)
			var kept int
			for i, v := range pv {
				if !pn[i] && v >= s.min && v <= s.max {
					kept++
				}
			}
			if c.kind == "minmax" {
				require.Len(t, want, kept, "%s/%d: min/max keeps exactly the in-range rows", c.name, n)
			}
			got, ok := s.selectRows(probe, nil)
			require.True(t, ok)
			require.NotNil(t, got)
			require.Equal(t, want, got, "%s/%d nil", c.name, n)
			prefix := []int32{-1, -2}
			got, ok = s.selectRows(probe, prefix)
			require.True(t, ok)
			require.Equal(t, append([]int32{-1, -2}, want...), got, "%s/%d prefix", c.name, n)
			probe.Release()
		}
		none := rfColumn(mem, []int64{s.max + 1, s.min - 1, s.max + 2}, []bool{false, false, false})
		got, ok := s.selectRows(none, nil)
		none.Release()
		require.True(t, ok)
		require.NotNil(t, got, c.name)
		require.Empty(t, got, c.name)
	}
}
