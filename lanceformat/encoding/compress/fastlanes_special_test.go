package compress

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The generated unpacker for every (t, w) agrees with the generic row-by-row unpacker and
// with the values the bit-at-a-time reference packer was given, writes only its own
// 1024 words of a larger (sliced) output, and reads only its 128*w packed bytes.
func TestFastLanesSpecialisedMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tw := range wordWidths {
		bw := tw / 8
		for w := 1; w <= tw; w++ {
			for _, off := range []int{0, bw, 3 * bw} { // aligned sub-slices of bigger buffers
				vals := randWords(r, 1024, tw, w)
				putWord(vals, int(r.IntN(1024)), bw, widthMask(w)) // the maximum occurs
				packed := refPack(tw, w, vals)
				in := bytes.Repeat([]byte{0xff}, off+len(packed)+16) // junk after the block
				copy(in[off:], packed)
				in = in[:off+len(packed)+16]
				out := bytes.Repeat([]byte{0xa5}, off+1024*bw+off+8)
				dst := out[off : off+1024*bw]
				require.True(t, unpackSpecialised(tw, w, in[off:], dst), "t=%d w=%d aligned", tw, w)
				require.Equal(t, vals, dst, "t=%d w=%d off=%d", tw, w, off)
				require.Equal(t, bytes.Repeat([]byte{0xa5}, off), out[:off], "t=%d w=%d: wrote before", tw, w)
				require.Equal(t, bytes.Repeat([]byte{0xa5}, off+8), out[off+1024*bw:], "t=%d w=%d: wrote after", tw, w)
				gen := make([]byte, 1024*bw)
				unpackGeneric(tw, w, in[off:], gen)
				require.Equal(t, gen, dst, "t=%d w=%d generic", tw, w)
			}
		}
	}
}

// Random (not reference-packed) bytes, so every packed bit including high junk in
// partially used words is exercised: specialised and generic unpackers agree.
func TestFastLanesSpecialisedRandomPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, tw := range wordWidths {
		for w := 1; w <= tw; w++ {
			packed := make([]byte, FastLanesPackedSize(w))
			for i := range packed {
				packed[i] = byte(r.Uint32())
			}
			a, b := make([]byte, 1024*tw/8), make([]byte, 1024*tw/8)
			require.True(t, unpackSpecialised(tw, w, packed, a))
			unpackGeneric(tw, w, packed, b)
			require.Equal(t, b, a, "t=%d w=%d", tw, w)
		}
	}
}

// Multi-block decodes with value counts that are not multiples of 1024 (inline blocks of
// mixed widths, out-of-line with a packed or raw tail) give the encoded values back,
// whether appended into room reserved in a sliced destination or through scratch.
func TestFastLanesDecodeOddLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, tw := range wordWidths {
		for _, n := range []int{1, 5, 1023, 1025, 2047, 3000} {
			t.Run(fmt.Sprintf("t%d_n%d", tw, n), func(t *testing.T) {
				bw := tw / 8
				vals := make([]byte, 0, n*bw)
				for b := 0; b < n; b += 1024 { // each block its own width
					m := min(1024, n-b)
					vals = append(vals, randWords(r, m, tw, r.IntN(tw+1))...)
				}
				enc, err := EncodeInlineBitpacked(vals, tw)
				require.NoError(t, err)
				got, err := DecodeInlineBitpacked(enc, tw, n)
				require.NoError(t, err)
				require.Equal(t, vals, got)
				prefix := []byte{1, 2, 3, 4, 5, 6, 7, 8}
				for _, room := range []int{0, 4096 * bw} {
					dst := append(make([]byte, 0, len(prefix)+room), prefix...)
					app, err := AppendInlineBitpacked(dst, enc, tw, n)
					require.NoError(t, err)
					require.Equal(t, append(append([]byte{}, prefix...), vals...), app, "room=%d", room)
				}
				oolVals := randWords(r, n, tw, r.IntN(tw+1))
				ool, w, err := EncodeOutOfLineBitpacked(oolVals, tw)
				require.NoError(t, err)
				got, err = DecodeOutOfLineBitpacked(ool, tw, w, n)
				require.NoError(t, err)
				require.Equal(t, oolVals, got)
			})
		}
	}
}

// The wide unpackers (64/t lanes a uint64) agree with the generic unpacker for every
// (t < 64, w) on random packed bits, at every alignment of the block and of the output,
// and write exactly their block.
func TestFastLanesWideMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, tw := range []int{8, 16, 32} {
		bw := tw / 8
		for w := 1; w <= tw; w++ {
			for _, shift := range []int{0, 1, 4, 7} {
				packed := make([]byte, shift+FastLanesPackedSize(w))
				for i := range packed {
					packed[i] = byte(r.Uint32())
				}
				packed = packed[shift:]
				out := bytes.Repeat([]byte{0xa5}, 8+shift+1024*bw+8)
				dst := out[8+shift : 8+shift+1024*bw]
				unpackWide(tw, w, packed, dst)
				want := make([]byte, 1024*bw)
				unpackGeneric(tw, w, packed, want)
				require.Equal(t, want, dst, "t=%d w=%d shift=%d", tw, w, shift)
				require.Equal(t, bytes.Repeat([]byte{0xa5}, 8+shift), out[:8+shift], "t=%d w=%d: wrote before", tw, w)
				require.Equal(t, bytes.Repeat([]byte{0xa5}, 8), out[8+shift+1024*bw:], "t=%d w=%d: wrote after", tw, w)
			}
		}
	}
}
