package encoding

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/encoding/compress"
)

// variableChunk32 builds a Variable mini-block chunk with 32-bit offsets holding vals,
// starting at byte shift of the returned slice (to test unaligned chunks).
func variableChunk32(vals [][]byte, shift int) []byte {
	n := len(vals)
	buf := make([]byte, shift+4*(n+1))
	off := 4 * (n + 1)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(buf[shift+4*i:], uint32(off))
		off += len(v)
	}
	binary.LittleEndian.PutUint32(buf[shift+4*n:], uint32(off))
	for _, v := range vals {
		buf = append(buf, v...)
	}
	return append(buf, 0, 0, 0)[shift : len(buf)+3] // padding, as chunks have
}

// appendVariable32 (offsets read straight from the chunk) builds the same array as the
// general path (DecodeVariableMiniBlock, then AppendVariable) for random chunks, aligned
// or not, any value range, after existing values; and rejects, leaving the builder as it
// was, exactly the chunks the general path rejects.
func TestAppendVariable32MatchesGeneral(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 600 {
		vals := make([][]byte, r.IntN(70))
		for i := range vals {
			vals[i] = make([]byte, []int{0, 1, 5, 40}[r.IntN(4)])
			for j := range vals[i] {
				vals[i][j] = byte(r.IntN(256))
			}
		}
		n := len(vals)
		buf := variableChunk32(vals, r.IntN(4))
		if iter%3 == 2 { // corrupt one offset: decrease, or past the end
			i := r.IntN(n + 1)
			binary.LittleEndian.PutUint32(buf[4*i:], uint32(r.IntN(len(buf)+20)))
		}
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n-lo+1)
		got, want := mustBuilder(t), mustBuilder(t)
		require.NoError(t, got.AppendValue([]byte("pre"), true))
		require.NoError(t, want.AppendValue([]byte("pre"), true))
		errGot := got.appendVariable32(buf, n, lo, hi)
		offs, data, errWant := compress.DecodeVariableMiniBlock(buf, 32, n)
		if errWant == nil {
			errWant = want.AppendVariable(offs, data, lo, hi, nil)
		}
		if errWant != nil {
			require.ErrorIs(t, errGot, ErrCorrupt, "iter %d", iter)
			require.Equal(t, 1, got.Len())
			require.Equal(t, []int64{0, 3}, got.offsets)
			require.Equal(t, "pre", string(got.data))
			continue
		}
		require.NoError(t, errGot, "iter %d", iter)
		a, err := got.FinishArray(mem)
		require.NoError(t, err)
		e, err := want.FinishArray(mem)
		require.NoError(t, err)
		require.Equal(t, hi-lo+1, a.Len())
		require.Truef(t, array.Equal(a, e), "iter %d: %v vs %v", iter, a, e)
		a.Release()
		e.Release()
	}
	for _, tc := range []struct {
		name      string
		n, lo, hi int
		bufLen    int
	}{
		{"negative n", -1, 0, 0, 16},
		{"offsets past the buffer", 10, 0, 10, 16},
		{"range past n", 2, 0, 3, 16},
		{"reversed range", 2, 2, 1, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuilder(t)
			require.ErrorIs(t, b.appendVariable32(make([]byte, tc.bufLen), tc.n, tc.lo, tc.hi), ErrCorrupt)
			require.Equal(t, 0, b.Len())
		})
	}
}

func mustBuilder(t *testing.T) *Builder {
	b, err := NewBuilder(arrow.BinaryTypes.Binary)
	require.NoError(t, err)
	return b
}

// rebaseEnds32 agrees with the plain loop for every length up to 13
// and a decrease at every position.
func TestRebaseEnds32(t *testing.T) {
	for n := range 14 {
		for bad := -1; bad < n; bad++ {
			src := make([]uint32, n+1)
			for i := range src {
				src[i] = uint32(10 + 3*i)
			}
			if bad >= 0 {
				src[bad+1] = src[bad] - 1 // offset bad+1 below offset bad
			}
			got, want := make([]int64, n), make([]int64, n)
			ok := true
			for i := range n {
				ok = ok && src[i+1] >= src[i]
				want[i] = -5 + int64(src[i+1])
			}
			require.Equal(t, ok, rebaseEnds32(got, src, -5), "n %d, decrease at %d", n, bad)
			require.Equal(t, bad < 0, ok)
			require.Equal(t, want, got, "n %d, decrease at %d", n, bad)
		}
	}
}

// decreases32 and rebaseEnds32 classify steps across the whole uint32 range: a jump from 0
// to the largest offset is an increase, the way back a decrease, equal offsets neither.
func TestDecreases32Extremes(t *testing.T) {
	const top = ^uint32(0)
	cases := []struct {
		name string
		src  []uint32
		dec  bool
	}{
		{"empty", nil, false},
		{"one", []uint32{top}, false},
		{"up from zero to top", []uint32{0, top, top, top, top, top}, false},
		{"equal", []uint32{7, 7, 7, 7, 7, 7, 7}, false},
		{"top to zero at the end", []uint32{0, 1, 2, 3, 4, top, 0}, true},
		{"top to zero in a step", []uint32{top, 0, 0, 0, 0, 0}, true},
		{"down by one near top", []uint32{top - 5, top, top - 1, top, top, top}, true},
		{"up by one near top", []uint32{top - 5, top - 4, top - 3, top - 2, top - 1, top}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.dec, decreases32(c.src))
			if len(c.src) == 0 {
				return
			}
			dst := make([]int64, len(c.src)-1)
			require.Equal(t, !c.dec, rebaseEnds32(dst, c.src, 1<<40))
			for i := range dst {
				require.Equal(t, int64(1)<<40+int64(c.src[i+1]), dst[i])
			}
		})
	}
}
