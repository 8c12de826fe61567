package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// split returns the values described by offsets/data.
func split(offsets []uint64, data []byte) [][]byte {
	out := make([][]byte, len(offsets)-1)
	for i := range out {
		out[i] = data[offsets[i]:offsets[i+1]]
	}
	return out
}

func TestVariableMiniBlockKnownAnswer(t *testing.T) {
	// {"ab", "", "c"} with u32 offsets: 4 offsets (16 bytes) starting at 16,
	// 3 data bytes, padded with 0x48 to a multiple of 4.
	buf, err := EncodeVariableMiniBlock(strs("ab", "", "c"), 32)
	require.NoError(t, err)
	want := append(u32s(16, 18, 18, 19), 'a', 'b', 'c', 0x48)
	require.Equal(t, want, buf)
	offs, data, err := DecodeVariableMiniBlock(buf, 32, 3)
	require.NoError(t, err)
	require.Equal(t, []uint64{0, 2, 2, 3}, offs)
	require.Equal(t, []byte("abc"), data)
}

func TestVariableRoundTrip(t *testing.T) {
	cases := [][][]byte{
		nil,
		strs(""),
		strs("x"),
		strs("hello", "", "world", "a longer string with spaces"),
	}
	big := make([][]byte, 1025)
	for i := range big {
		big[i] = []byte(string(rune('a' + i%26)))
	}
	cases = append(cases, big)
	for _, vals := range cases {
		for _, bits := range []int{32, 64} {
			buf, err := EncodeVariableMiniBlock(vals, bits)
			require.NoError(t, err)
			require.Zero(t, len(buf)%(bits/8))
			offs, data, err := DecodeVariableMiniBlock(buf, bits, len(vals))
			require.NoError(t, err)
			require.Equal(t, normalize(vals), split(offs, data))

			blk, err := EncodeVariableBlock(vals, bits)
			require.NoError(t, err)
			offs, data, err = DecodeVariableBlock(blk, len(vals))
			require.NoError(t, err)
			require.Equal(t, normalize(vals), split(offs, data))
		}
	}
}

// normalize maps nil entries to empty slices for comparison.
func normalize(vals [][]byte) [][]byte {
	out := make([][]byte, len(vals))
	for i, v := range vals {
		out[i] = append([]byte{}, v...)
	}
	return out
}

func TestVariableBlockLayouts(t *testing.T) {
	// Current 32-bit layout: u32 32 | u32 bytes_start | offsets | bytes.
	blk, err := EncodeVariableBlock(strs("ab", "c"), 32)
	require.NoError(t, err)
	require.Equal(t, append(u32s(32, 20, 0, 2, 3), 'a', 'b', 'c'), blk)
	// Old layout: u8 32 | u32 n | u32 bytes_start | offsets | bytes.
	old := []byte{32, 2, 0, 0, 0, 21, 0, 0, 0}
	old = append(old, u32s(0, 2, 3)...)
	old = append(old, 'a', 'b', 'c')
	offs, data, err := DecodeVariableBlock(old, 2)
	require.NoError(t, err)
	require.Equal(t, strs("ab", "c"), split(offs, data))
	// 64-bit current layout.
	blk, err = EncodeVariableBlock(strs("ab", "c"), 64)
	require.NoError(t, err)
	require.Equal(t, byte(64), blk[0])
	require.Equal(t, byte(40), blk[8])
}

func TestVariableCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"mini: offsets past end", func() error {
			_, _, err := DecodeVariableMiniBlock(u32s(8, 100), 32, 1)
			return err
		}},
		{"mini: decreasing", func() error {
			_, _, err := DecodeVariableMiniBlock(append(u32s(12, 14, 13), 1, 2), 32, 2)
			return err
		}},
		{"mini: too few offsets", func() error {
			_, _, err := DecodeVariableMiniBlock(u32s(8), 32, 5)
			return err
		}},
		{"mini: bad width", func() error {
			_, _, err := DecodeVariableMiniBlock(u32s(8, 8), 16, 1)
			return err
		}},
		{"block: short", func() error {
			_, _, err := DecodeVariableBlock([]byte{32, 0, 0}, 0)
			return err
		}},
		{"block: bytes_start past end", func() error {
			_, _, err := DecodeVariableBlock(u32s(32, 99, 0), 0)
			return err
		}},
		{"block: bad width", func() error {
			_, _, err := DecodeVariableBlock(u32s(16, 8, 0), 0)
			return err
		}},
		{"block: not enough offsets", func() error {
			_, _, err := DecodeVariableBlock(u32s(32, 12, 0), 3)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tc.fn(), ErrCorrupt)
		})
	}
}

// DecodeVariableMiniBlockInto (its 32-bit offsets loop and the generic one) agrees with a
// naive check on random offsets: the values come out rebased to 0 when the offsets never
// decrease and stay within the buffer, and anything else is ErrCorrupt.
func TestVariableOffsetsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		bits := []int{32, 64}[iter%2]
		bw := bits / 8
		n := r.IntN(50)
		total := (n + 1) * bw
		offs := make([]uint64, n+1)
		offs[0] = uint64(total)
		for i := 1; i <= n; i++ {
			offs[i] = offs[i-1] + uint64(r.IntN(4))
		}
		buf := make([]byte, int(offs[n])+r.IntN(3))
		switch iter % 5 {
		case 3: // one offset decreases
			if n > 0 {
				i := 1 + r.IntN(n)
				offs[i] = offs[i-1] - 1
			}
		case 4: // the last offset is past the buffer
			offs[n] = uint64(len(buf)) + 1 + uint64(r.IntN(3))
		}
		for i, o := range offs {
			putWord(buf, i, bw, o)
		}
		good := offs[n] <= uint64(len(buf))
		for i := 1; i <= n; i++ {
			good = good && offs[i] >= offs[i-1]
		}
		got, data, err := DecodeVariableMiniBlockInto(make([]uint64, 0, 8), buf, bits, n)
		if !good {
			require.ErrorIs(t, err, ErrCorrupt, "iter %d", iter)
			continue
		}
		require.NoError(t, err, "iter %d", iter)
		for i := range offs {
			require.Equal(t, offs[i]-offs[0], got[i], "iter %d offset %d", iter, i)
		}
		require.Equal(t, buf[offs[0]:offs[n]], data)
	}
}
