package compress

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRLEKnownAnswer(t *testing.T) {
	// [1,1,1,2,2,3,3,3,3] as i32 -> values [1,2,3], lengths [3,2,4].
	in := u32s(1, 1, 1, 2, 2, 3, 3, 3, 3)
	vals, lens, err := EncodeRLE(in, 32)
	require.NoError(t, err)
	require.Equal(t, u32s(1, 2, 3), vals)
	require.Equal(t, []byte{3, 2, 4}, lens)
	got, err := DecodeRLE(vals, lens, 32, 9)
	require.NoError(t, err)
	require.Equal(t, in, got)
	// A run of 1000 splits into 255,255,255,235.
	long := make([]byte, 1000)
	_, lens, err = EncodeRLE(long, 8)
	require.NoError(t, err)
	require.Equal(t, []byte{255, 255, 255, 235}, lens)
	// Decoding stops at n even if runs hold more.
	got, err = DecodeRLE(u32s(7), []byte{5}, 32, 2)
	require.NoError(t, err)
	require.Equal(t, u32s(7, 7), got)
}

func TestRLERoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, tw := range wordWidths {
		for _, n := range edgeCounts {
			vals := make([]byte, n*tw/8)
			for i := 0; i < n; {
				run := 1 + r.IntN(600)
				v := r.Uint64()
				for j := 0; j < run && i < n; j++ {
					putWord(vals, i, tw/8, v)
					i++
				}
			}
			rv, rl, err := EncodeRLE(vals, tw)
			require.NoError(t, err)
			got, err := DecodeRLE(rv, rl, tw, n)
			require.NoError(t, err)
			require.Len(t, got, len(vals))
			require.Equal(t, vals, got)
		}
	}
	runs, err := CountRuns(u16s(1, 1, 2, 2, 2, 1), 16)
	require.NoError(t, err)
	require.Equal(t, 3, runs)
}

func TestRLECorrupt(t *testing.T) {
	_, err := DecodeRLE(u32s(1, 2), []byte{1}, 32, 1)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeRLE(u32s(1), []byte{2}, 32, 3)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeRLE([]byte{1, 2, 3}, []byte{1}, 32, 1)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeRLE(nil, nil, 32, 1)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeRLE(u32s(1), []byte{0}, 32, 1)
	require.ErrorIs(t, err, ErrCorrupt)
	got, err := DecodeRLE(nil, nil, 32, 0)
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestByteStreamSplit(t *testing.T) {
	// Known answer: two f32 values -> bytes grouped by significance.
	in := u32s(math.Float32bits(1.5), math.Float32bits(-2.25))
	enc, err := EncodeByteStreamSplit(in, 32)
	require.NoError(t, err)
	require.Equal(t, []byte{in[0], in[4], in[1], in[5], in[2], in[6], in[3], in[7]}, enc)
	r := rand.New(rand.NewPCG(1, 1))
	for _, tw := range []int{32, 64} {
		for _, n := range []int{0, 1, 511, 512, 1024} {
			vals := randWords(r, n, tw, tw)
			enc, err := EncodeByteStreamSplit(vals, tw)
			require.NoError(t, err)
			got, err := DecodeByteStreamSplit(enc, tw, n)
			require.NoError(t, err)
			require.Equal(t, vals, got)
		}
	}
	_, err = DecodeByteStreamSplit(make([]byte, 7), 32, 2)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeByteStreamSplit(make([]byte, 8), 16, 4)
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestRLEWide(t *testing.T) {
	// 1000 equal i32 values with u16 run lengths: one run.
	in := make([]byte, 4000)
	for i := range 1000 {
		putWord(in, i, 4, 42)
	}
	vals, lens, err := EncodeRLEWidth(in, 32, 16)
	require.NoError(t, err)
	require.Equal(t, u32s(42), vals)
	require.Equal(t, u16s(1000), lens)
	got, err := DecodeRLEWidth(vals, lens, 32, 16, 1000)
	require.NoError(t, err)
	require.Equal(t, in, got)
	// Block frame: u64 values size, values, lengths.
	blk, err := EncodeRLEBlock(u16s(0, 0, 0, 3, 3), 16, 8)
	require.NoError(t, err)
	require.Equal(t, []byte{4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 3, 2}, blk)
	got, err = DecodeRLEBlock(blk, 16, 8, 5)
	require.NoError(t, err)
	require.Equal(t, u16s(0, 0, 0, 3, 3), got)
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"odd u16 lengths", func() error { _, err := DecodeRLEWidth(u32s(1), []byte{5}, 32, 16, 5); return err }},
		{"bad length width", func() error { _, err := DecodeRLEWidth(u32s(1), []byte{5}, 32, 12, 5); return err }},
		{"block short", func() error { _, err := DecodeRLEBlock([]byte{1, 0}, 16, 8, 1); return err }},
		{"block values past end", func() error { _, err := DecodeRLEBlock([]byte{9, 0, 0, 0, 0, 0, 0, 0, 1}, 16, 8, 1); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.fn(), ErrCorrupt)
		})
	}
}
