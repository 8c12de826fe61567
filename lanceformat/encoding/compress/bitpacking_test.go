package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

var edgeCounts = []int{0, 1, 2, 1023, 1024, 1025, 2048, 3000}

func TestInlineBitpackingRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tw := range wordWidths {
		for _, n := range edgeCounts {
			for _, w := range []int{0, 1, tw / 2, tw - 1, tw} {
				vals := randWords(r, n, tw, w)
				enc, err := EncodeInlineBitpacked(vals, tw)
				require.NoError(t, err)
				got, err := DecodeInlineBitpacked(enc, tw, n)
				require.NoError(t, err)
				require.Len(t, got, len(vals))
				require.Equal(t, vals, got, "t=%d n=%d w=%d", tw, n, w)
			}
		}
	}
}

func TestInlineBitpackingLayout(t *testing.T) {
	// 5 u32 values {0..4}: one block, header word 3 (max 4 needs 3 bits),
	// then 128*3 bytes.
	vals := u32s(0, 1, 2, 3, 4)
	enc, err := EncodeInlineBitpacked(vals, 32)
	require.NoError(t, err)
	require.Len(t, enc, 4+128*3)
	require.Equal(t, []byte{3, 0, 0, 0}, enc[:4])
	// Per-block widths: block 0 all zero (W=0, header only), block 1 max 255.
	vals16 := make([]byte, 2*1500)
	putWord(vals16, 1400, 2, 255)
	enc, err = EncodeInlineBitpacked(vals16, 16)
	require.NoError(t, err)
	require.Len(t, enc, 2+2+128*8)
	require.Equal(t, []byte{0, 0, 8, 0}, enc[:4])
	got, err := DecodeInlineBitpacked(enc, 16, 1500)
	require.NoError(t, err)
	require.Equal(t, vals16, got)
}

func TestInlineBitpackingCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		t, n int
	}{
		{"width above t", []byte{9}, 8, 1},
		{"truncated block", append([]byte{4, 0}, make([]byte, 100)...), 16, 10},
		{"missing second block", []byte{0, 0, 0}, 16, 2000},
		{"empty", nil, 32, 1},
		{"bad t", []byte{1, 2, 3}, 24, 1},
		{"negative n", nil, 32, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeInlineBitpacked(tc.data, tc.t, tc.n)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt, "%v", err)
		})
	}
}

func TestOutOfLineBitpackingRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tw := range wordWidths {
		for _, n := range append(edgeCounts, 1024+1000, 1024+10) {
			for _, w := range []int{0, 1, 3, tw - 1, tw} {
				vals := randWords(r, n, tw, w)
				if n > 0 && w > 0 {
					putWord(vals, n-1, tw/8, widthMask(w))
				}
				enc, gotW, err := EncodeOutOfLineBitpacked(vals, tw)
				require.NoError(t, err)
				if n > 0 {
					require.Equal(t, w, gotW)
				}
				got, err := DecodeOutOfLineBitpacked(enc, tw, gotW, n)
				require.NoError(t, err)
				require.Equal(t, vals, got, "t=%d n=%d w=%d", tw, n, w)
			}
		}
	}
}

func TestOutOfLineTailRule(t *testing.T) {
	// t=16, w=1: tail of 10 values. Pack iff 1*(1024-10) < 15*10 -> false,
	// so raw: 1024 full values -> 64 words, plus 10 raw words.
	vals := make([]byte, 2*1034)
	putWord(vals, 0, 2, 1)
	putWord(vals, 1033, 2, 1)
	enc, w, err := EncodeOutOfLineBitpacked(vals, 16)
	require.NoError(t, err)
	require.Equal(t, 1, w)
	require.Len(t, enc, 2*(64+10))
	// Tail of 1000: 1*24 < 15*1000 -> packed: 64+64 words.
	vals = make([]byte, 2*2024)
	putWord(vals, 2023, 2, 1)
	enc, _, err = EncodeOutOfLineBitpacked(vals, 16)
	require.NoError(t, err)
	require.Len(t, enc, 2*128)
	got, err := DecodeOutOfLineBitpacked(enc, 16, 1, 2024)
	require.NoError(t, err)
	require.Equal(t, vals, got)
	// Tie (w*(1024-t') == (t-w)*t') goes to raw: t=16, w=8, t'=512.
	vals = make([]byte, 2*512)
	putWord(vals, 3, 2, 200)
	enc, w, err = EncodeOutOfLineBitpacked(vals, 16)
	require.NoError(t, err)
	require.Equal(t, 8, w)
	require.Equal(t, vals, enc)
}

func TestOutOfLineCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    []byte
		t, w, n int
	}{
		{"odd bytes", []byte{1, 2, 3}, 16, 1, 1},
		{"too short", make([]byte, 2*10), 16, 1, 1024},
		{"w above t", make([]byte, 2048), 8, 9, 1024},
		{"zero width huge n", nil, 16, 0, 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeOutOfLineBitpacked(tc.data, tc.t, tc.w, tc.n)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrCorrupt, "%v", err)
		})
	}
}

func TestFlat(t *testing.T) {
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, tc := range []struct {
		bits uint64
		n    int
		want []byte
	}{
		{8, 3, []byte{1, 2, 3}},
		{16, 4, data[:8]},
		{1, 9, data[:2]},
		{1, 0, []byte{}},
		{64, 1, data[:8]},
		{128, 0, []byte{}},
	} {
		got, err := DecodeFlat(data, tc.bits, tc.n)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	_, err := DecodeFlat(data, 64, 2)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeFlat(data, 0, 2)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeFlat(data, 8, -1)
	require.ErrorIs(t, err, ErrCorrupt)
}
