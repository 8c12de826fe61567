package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var wordWidths = []int{8, 16, 32, 64}

// randWords returns n little-endian words of t bits, each below 2^w.
func randWords(r *rand.Rand, n, t, w int) []byte {
	out := make([]byte, n*t/8)
	mask := widthMask(w)
	for i := range n {
		putWord(out, i, t/8, r.Uint64()&mask)
	}
	return out
}

// refPack is an independent, bit-at-a-time implementation of the FastLanes
// layout as the spec states it: lane l's stream is the concatenation of the
// w-bit values for rows 0..t-1, and stream bit b lives in bit b%t of word
// packed[LANES*(b/t)+l].
func refPack(t, w int, values []byte) []byte {
	lanes := 1024 / t
	bw := t / 8
	out := make([]byte, 128*w)
	for lane := range lanes {
		b := 0
		for row := range t {
			idx := []int{0, 4, 2, 6, 1, 5, 3, 7}[row/8]*16 + (row%8)*128 + lane
			v := getWord(values, idx, bw)
			for bit := range w {
				if v>>uint(bit)&1 == 1 {
					word := lanes*(b/t) + lane
					byteIdx := word*bw + (b%t)/8
					out[byteIdx] |= 1 << uint((b%t)%8)
				}
				b++
			}
		}
	}
	return out
}

func TestRefPackMatchesSpecForFullWidth(t *testing.T) {
	// W=T means packed[LANES*row+lane] = value(idx(row,lane)).
	r := rand.New(rand.NewPCG(1, 2))
	for _, tw := range wordWidths {
		vals := randWords(r, 1024, tw, tw)
		packed := refPack(tw, tw, vals)
		lanes := 1024 / tw
		for row := range tw {
			for lane := range lanes {
				require.Equal(t, getWord(vals, flIndex(row, lane), tw/8), getWord(packed, lanes*row+lane, tw/8))
			}
		}
	}
}

func u16s(vs ...uint16) []byte {
	out := make([]byte, 2*len(vs))
	for i, v := range vs {
		putWord(out, i, 2, uint64(v))
	}
	return out
}

func u32s(vs ...uint32) []byte {
	out := make([]byte, 4*len(vs))
	for i, v := range vs {
		putWord(out, i, 4, uint64(v))
	}
	return out
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(42, 43)) }
