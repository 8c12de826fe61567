package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// AppendStrings agrees with the string-at-a-time DecodeFSSTStrings, after existing output
// and from offsets that do not start at 0, with and without a size from DecodedSize.
func TestAppendStringsMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := strs("carefully", "final", "deposits", "sleep", "", "q", "\xff\x00\x01", "abcdefghijklmnop")
	var in [][]byte
	for range 3000 {
		var s []byte
		for range r.IntN(5) {
			s = append(s, words[r.IntN(len(words))]...)
			s = append(s, ' ')
		}
		in = append(in, s)
	}
	built := BuildFSSTTable(in)
	blob, err := built.Marshal()
	require.NoError(t, err)
	parsed, err := ParseFSSTSymbolTable(blob)
	require.NoError(t, err)
	offs, data := built.CompressAll(in)
	for _, tc := range []struct {
		name string
		tab  *FSSTTable
		lo   int    // first string
		size string // "": let AppendStrings size; "exact": DecodedSize; "bound": 8x the codes
	}{
		{"parsed", parsed, 0, ""},
		{"parsed-sized", parsed, 0, "exact"},
		{"built-from-117", built, 117, "exact"},
		{"upper-bound", parsed, 3, "bound"},
		{"switch-off", &FSSTTable{Symbols: built.Symbols}, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := offs[tc.lo:]
			wantOffs, wantData, err := DecodeFSSTStrings(tc.tab, rebase(o), data[o[0]:])
			require.NoError(t, err)
			size := -1
			switch tc.size {
			case "exact":
				size, err = tc.tab.DecodedSize(o, data)
				require.NoError(t, err)
				require.Equal(t, len(wantData), size)
			case "bound":
				size = FSSTMaxSymbolLen * int(o[len(o)-1]-o[0])
				require.Greater(t, size, len(wantData))
			}
			ends, got, err := tc.tab.AppendStrings([]int64{0, 3}, []byte("pre"), o, data, size)
			require.NoError(t, err)
			require.Equal(t, "pre", string(got[:3]))
			require.Equal(t, wantData, got[3:])
			require.Len(t, ends, 2+len(o)-1)
			for i, e := range ends[2:] {
				require.EqualValues(t, 3+wantOffs[i+1], e, "end of string %d", i)
			}
		})
	}
}

func rebase(o []uint64) []uint64 {
	out := make([]uint64, len(o))
	for i, v := range o {
		out[i] = v - o[0]
	}
	return out
}

// Bad input is an ErrCorrupt error, never a panic or an out-of-range write, and leaves the
// output as it was.
func TestAppendStringsCorrupt(t *testing.T) {
	tab := testTable(t)
	for _, tc := range []struct {
		name string
		offs []uint64
		data []byte
		size int
	}{
		{"no offsets", nil, nil, -1},
		{"escape at end", []uint64{0, 2}, []byte{0, FSSTEscape}, -1},
		{"escape across strings", []uint64{0, 1, 2}, []byte{FSSTEscape, 'a'}, -1},
		{"code without symbol", []uint64{0, 1}, []byte{7}, -1},
		{"decreasing offsets", []uint64{0, 2, 1, 3}, []byte{0, 1, 2}, -1},
		{"past the data", []uint64{0, 4}, []byte{0, 1}, -1},
		{"size too small", []uint64{0, 3}, []byte{3, 3, 3}, 9},
		{"size zero", []uint64{0, 1}, []byte{2}, 0},
		// The same faults with room for the worst case (decoded as one run).
		{"run: escape at end", []uint64{0, 2}, []byte{0, FSSTEscape}, 16},
		{"run: escape across strings", []uint64{0, 1, 2}, []byte{FSSTEscape, 'a'}, 16},
		{"run: code without symbol", []uint64{0, 1, 3}, []byte{0, 1, 7}, 24},
		{"run: decreasing offsets", []uint64{0, 2, 1, 3}, []byte{0, 1, 2}, 24},
		{"run: offset past the last", []uint64{0, 1 << 20, 2}, []byte{0, 1}, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ends, out, err := tab.AppendStrings([]int64{0}, []byte("x"), tc.offs, tc.data, tc.size)
			require.ErrorIs(t, err, ErrCorrupt, "%v", err)
			require.Equal(t, []int64{0}, ends[:1])
			require.Equal(t, "x", string(out))
		})
	}
}

// AppendInlineBitpacked agrees with DecodeInlineBitpacked whether the output has room for
// whole blocks (decoded in place) or not (decoded through scratch), after existing bytes.
func TestAppendInlineBitpacked(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tw := range wordWidths {
		for _, n := range []int{0, 1, 1023, 1024, 1025, 3000, 4096} {
			for _, room := range []bool{false, true} {
				vals := randWords(r, n, tw, tw/2+1)
				enc, err := EncodeInlineBitpacked(vals, tw)
				require.NoError(t, err)
				dst := []byte{1, 2, 3}
				if room {
					dst = append(make([]byte, 0, 3+len(vals)), dst...)
				}
				got, err := AppendInlineBitpacked(dst, enc, tw, n)
				require.NoError(t, err)
				require.Equal(t, []byte{1, 2, 3}, got[:3])
				require.Equal(t, vals, got[3:], "t=%d n=%d room=%v", tw, n, room)
			}
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		t, n int
	}{
		{"width above t", []byte{9}, 8, 1},
		{"truncated block", append([]byte{4, 0}, make([]byte, 100)...), 16, 10},
		{"missing second block", append([]byte{0, 0}, 0), 16, 2000},
		{"bad t", []byte{1, 2, 3}, 24, 1},
		{"negative n", nil, 32, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := AppendInlineBitpacked([]byte{9}, tc.data, tc.t, tc.n)
			require.ErrorIs(t, err, ErrCorrupt, "%v", err)
			require.Equal(t, []byte{9}, out)
		})
	}
}
