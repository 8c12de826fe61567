package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFastLanesRoundTripAllWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tw := range wordWidths {
		for w := 0; w <= tw; w++ {
			vals := randWords(r, 1024, tw, w)
			if w > 0 { // make sure the maximum value occurs
				putWord(vals, 1023, tw/8, widthMask(w))
			}
			packed, err := FastLanesPack(nil, tw, w, vals)
			require.NoError(t, err)
			require.Len(t, packed, 128*w)
			if w > 0 {
				require.Equal(t, refPack(tw, w, vals), packed, "t=%d w=%d layout", tw, w)
			}
			out := make([]byte, 1024*tw/8)
			require.NoError(t, FastLanesUnpack(tw, w, packed, out))
			require.Equal(t, vals, out, "t=%d w=%d", tw, w)
		}
	}
}

func TestFastLanesKnownAnswer(t *testing.T) {
	// t=8, w=1 (LANES=128): index 0 (row 0, lane 0) -> bit 0 of word 0;
	// index 1 (row 0, lane 1) -> bit 0 of word 1; index 128 (row 1, lane 0)
	// -> bit 1 of word 0; index 64 (row 0, lane 64) -> bit 0 of word 64.
	vals := make([]byte, 1024)
	vals[0], vals[1], vals[128], vals[64] = 1, 1, 1, 1
	packed, err := FastLanesPack(nil, 8, 1, vals)
	require.NoError(t, err)
	want := make([]byte, 128)
	want[0] = 0b11
	want[1] = 0b01
	want[64] = 0b01
	require.Equal(t, want, packed)
	// For t >= 16, row 8 of lane 0 is index ORDER[1]*16 = 64.
	require.Equal(t, 64, flIndex(0, 64))
	require.Equal(t, 128, flIndex(1, 0))
	require.Equal(t, 64, flIndex(8, 0))
}

func TestFastLanesErrors(t *testing.T) {
	out := make([]byte, 1024*4)
	for _, tc := range []struct {
		name   string
		t, w   int
		packed []byte
	}{
		{"bad t", 12, 3, make([]byte, 1024)},
		{"w > t", 8, 9, make([]byte, 2048)},
		{"negative w", 8, -1, nil},
		{"short", 32, 5, make([]byte, 128*5-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := FastLanesUnpack(tc.t, tc.w, tc.packed, out)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}
