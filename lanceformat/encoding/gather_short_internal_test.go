package encoding

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
)

// The short-value gather (values of at most 32 bytes: strides of 1 to 4 words, equal
// lengths or not) agrees with a naive gather on random dictionaries and indices
// of every width, out-of-range indices included, after values already in the builder,
// with and without a cached table.
func TestGatherShortMatchesSlots(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := range 200 {
		maxLen := []int{0, 1, 8, 9, 16, 17, 24, 32}[iter%8]
		var vals []string
		same := iter%3 == 0
		n := 1 + r.IntN(20)
		l0 := r.IntN(maxLen + 1)
		for range n {
			l := l0
			if !same {
				l = r.IntN(maxLen + 1)
			}
			v := make([]byte, l)
			for j := range v {
				v[j] = byte('a' + r.IntN(26))
			}
			vals = append(vals, string(v))
		}
		dict := strDict(vals...)
		bits := []int{8, 16, 32, 64}[r.IntN(4)]
		rows := r.IntN(3000)
		raw := make([]byte, rows*bits/8+1)[1:] // unaligned for the wider indices half the time
		if iter%2 == 0 {
			raw = make([]byte, rows*bits/8)
		}
		want := []string{"pre"}
		for i := range rows {
			k := uint64(r.IntN(n + 2)) // past the dictionary now and then: an empty value
			switch bits {
			case 8:
				raw[i] = byte(k)
			case 16:
				binary.LittleEndian.PutUint16(raw[2*i:], uint16(k))
			case 32:
				binary.LittleEndian.PutUint32(raw[4*i:], uint32(k))
			default:
				binary.LittleEndian.PutUint64(raw[8*i:], k)
			}
			if k < uint64(n) {
				want = append(want, vals[k])
			} else {
				want = append(want, "")
			}
		}
		for _, cached := range []bool{false, true} {
			name := fmt.Sprintf("iter %d bits %d cached %v", iter, bits, cached)
			b, err := NewBuilder(arrow.BinaryTypes.String)
			require.NoError(t, err)
			require.NoError(t, b.AppendValue([]byte("pre"), true))
			b.Reserve(rows)
			var short *shortDict
			cache := (**shortDict)(nil)
			if cached {
				cache = &short
			}
			// In two calls, the second from the table the first cached.
			half := rows / 2 * bits / 8
			require.NoError(t, b.appendGather(dict, cache, raw[:half], bits, rows/2), name)
			require.NoError(t, b.appendGather(dict, cache, raw[half:], bits, rows-rows/2), name)
			require.Equal(t, len(want), b.Len(), name)
			for i, w := range want {
				require.Equal(t, w, string(b.data[b.offsets[i]:b.offsets[i+1]]), "%s slot %d", name, i)
			}
			require.Len(t, b.data, int(b.offsets[len(want)]), name)
			b.Release()
		}
	}
}

// AppendVariable rebases random offsets after existing values and rejects decreasing
// offsets anywhere in the range (leaving the builder as it was).
func TestAppendVariableRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for iter := range 300 {
		n := 1 + r.IntN(100)
		offs := make([]uint64, n+1)
		offs[0] = uint64(r.IntN(5))
		for i := 1; i <= n; i++ {
			offs[i] = offs[i-1] + uint64(r.IntN(4))
		}
		data := make([]byte, offs[n]+uint64(r.IntN(3)))
		for i := range data {
			data[i] = byte('a' + r.IntN(26))
		}
		lo := r.IntN(n)
		hi := lo + r.IntN(n-lo+1)
		bad := iter%4 == 3 && hi > lo
		if bad {
			i := lo + 1 + r.IntN(hi-lo)
			if offs[i] == 0 {
				offs[i-1]++
			} else {
				offs[i] = offs[i-1] - 1
			}
			bad = offs[lo] <= offs[hi] // else the range check catches it first
		}
		b, err := NewBuilder(arrow.BinaryTypes.String)
		require.NoError(t, err)
		require.NoError(t, b.AppendValue([]byte("xy"), true))
		err = b.AppendVariable(offs, data, lo, hi, nil)
		if bad || offs[lo] > offs[hi] {
			require.ErrorIs(t, err, ErrCorrupt, "iter %d", iter)
			require.Equal(t, []int64{0, 2}, b.offsets, "iter %d", iter)
			require.Equal(t, 1, b.Len())
			continue
		}
		require.NoError(t, err, "iter %d", iter)
		require.Equal(t, 1+hi-lo, b.Len())
		for i := lo; i < hi; i++ {
			got := b.data[b.offsets[1+i-lo]:b.offsets[2+i-lo]]
			require.Equal(t, string(data[offs[i]:offs[i+1]]), string(got), "iter %d value %d", iter, i)
		}
		b.Release()
	}
}
