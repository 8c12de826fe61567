package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Word-typed unpacking (aligned buffers) and the generic path it falls back to for
// unaligned ones give the same values as the bit-at-a-time reference packer's input.
func TestFastLanesUnpackAlignment(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, tw := range wordWidths {
		for _, w := range []int{1, 3, tw / 2, tw - 1, tw} {
			vals := randWords(r, 1024, tw, w)
			packed := refPack(tw, w, vals)
			for _, shift := range []int{0, 1} {
				in := make([]byte, shift+len(packed))
				copy(in[shift:], packed)
				out := make([]byte, shift+1024*tw/8)
				require.NoError(t, FastLanesUnpack(tw, w, in[shift:], out[shift:]))
				require.Equal(t, vals, out[shift:], "t=%d w=%d shift=%d", tw, w, shift)
			}
		}
	}
}
