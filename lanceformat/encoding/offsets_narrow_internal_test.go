package encoding

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// narrowOffsets (four at a time, OR-accumulated range check) agrees with the plain loop on
// every length 0..40 (all tails), with offsets in range, at MaxInt32, past it and
// negative anywhere; offsetsBuffer returns the same values or an ErrCorrupt error.
func TestNarrowOffsetsMatchesSimple(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 41 {
		for iter := range 30 {
			offs := make([]int64, n)
			for i := range offs {
				offs[i] = r.Int64N(math.MaxInt32 + 1)
			}
			if n > 0 && iter%3 != 0 {
				offs[r.IntN(n)] = []int64{math.MaxInt32, math.MaxInt32 + 1, -1, math.MinInt64, 1 << 40}[r.IntN(5)]
			}
			got, want := make([]int32, n), make([]int32, n)
			okGot, okWant := narrowOffsets(got, offs), narrowOffsetsSimple(want, offs)
			require.Equal(t, okWant, okGot, "n=%d %v", n, offs)
			require.Equal(t, want, got, "n=%d", n)
			buf, err := offsetsBuffer(mem, offs, false)
			if !okWant {
				require.ErrorIs(t, err, ErrCorrupt)
				continue
			}
			require.NoError(t, err)
			if n > 0 {
				require.Equal(t, want, arrow.Int32Traits.CastFromBytes(buf.Bytes())[:n])
			}
			buf.Release()
		}
	}
}

// BenchmarkOffsetsBuffer narrows a batch's worth (16Ki values) of string offsets to Arrow's
// 32-bit offsets.
func BenchmarkOffsetsBuffer(b *testing.B) {
	offs := make([]int64, 16<<10+1)
	for i := 1; i < len(offs); i++ {
		offs[i] = offs[i-1] + int64(10+i%31)
	}
	mem := memory.NewGoAllocator()
	b.SetBytes(int64(8 * len(offs)))
	for b.Loop() {
		buf, err := offsetsBuffer(mem, offs, false)
		if err != nil {
			b.Fatal(err)
		}
		buf.Release()
	}
}

// narrowOffsetsSimple is the plain loop narrowOffsets must agree with.
func narrowOffsetsSimple(out []int32, offs []int64) bool {
	ok := true
	for i, o := range offs {
		ok = ok && o >= 0 && o <= 1<<31-1
		out[i] = int32(o)
	}
	return ok
}

func BenchmarkNarrowOffsets(b *testing.B) {
	offs := make([]int64, 16<<10+1)
	for i := 1; i < len(offs); i++ {
		offs[i] = offs[i-1] + int64(10+i%31)
	}
	out := make([]int32, len(offs))
	for _, v := range []string{"simple", "fast"} {
		b.Run(v, func(b *testing.B) {
			for b.Loop() {
				if v == "simple" {
					narrowOffsetsSimple(out, offs)
				} else {
					narrowOffsets(out, offs)
				}
			}
		})
	}
}
