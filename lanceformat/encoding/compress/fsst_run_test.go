package compress

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeNaive decodes FSST strings code by code, the reference for the bulk decoders: it
// reports false for a code without a symbol or an escape at the end of a string.
func decodeNaive(tab *FSSTTable, offs []uint64, data []byte) ([][]byte, bool) {
	var out [][]byte
	for i := 1; i < len(offs); i++ {
		var s []byte
		src := data[offs[i-1]:offs[i]]
		for j := 0; j < len(src); j++ {
			c := src[j]
			if c == FSSTEscape {
				if j++; j >= len(src) {
					return nil, false
				}
				s = append(s, src[j])
				continue
			}
			if int(c) >= len(tab.Symbols) || len(tab.Symbols[c]) == 0 {
				return nil, false
			}
			s = append(s, tab.Symbols[c]...)
		}
		out = append(out, s)
	}
	return out, true
}

// The one-run decoder (decodeRun: four codes at a time between escapes) and the
// string-at-a-time decoder agree with a naive decode on random symbol tables and codes,
// with escapes anywhere (also among the four), codes without a symbol and runs of every
// length, and both report the same strings as corrupt.
func TestFSSTRunMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 400 {
		nsym := 1 + r.IntN(254)
		syms := make([][]byte, nsym)
		for i := range syms {
			syms[i] = make([]byte, 1+r.IntN(FSSTMaxSymbolLen))
			for j := range syms[i] {
				syms[i][j] = byte(r.IntN(256))
			}
		}
		tab := &FSSTTable{EncoderSwitch: true, Symbols: syms}
		corrupt := iter%4 == 3
		offs, data := []uint64{0}, []byte{}
		for range r.IntN(40) {
			for range r.IntN(30) {
				switch k := r.IntN(10); {
				case k == 0:
					data = append(data, FSSTEscape, byte(r.IntN(256)))
				case k == 1 && corrupt:
					data = append(data, byte(nsym+r.IntN(FSSTEscape-nsym+1))) // no symbol, or an escape
				default:
					data = append(data, byte(r.IntN(nsym)))
				}
			}
			offs = append(offs, uint64(len(data)))
		}
		want, ok := decodeNaive(tab, offs, data)
		for _, size := range []string{"run", "exact"} {
			sz := FSSTMaxSymbolLen * len(data) // room for the worst case: one run
			if size == "exact" {
				var err error
				if sz, err = tab.DecodedSize(offs, data); err != nil {
					require.False(t, ok, "iter %d: DecodedSize failed on good input: %v", iter, err)
					continue
				}
			}
			ends, got, err := tab.AppendStrings([]int64{0}, []byte("x"), offs, data, sz)
			if !ok {
				require.ErrorIs(t, err, ErrCorrupt, "iter %d %s", iter, size)
				require.Equal(t, "x", string(got), "iter %d %s", iter, size)
				continue
			}
			require.NoError(t, err, "iter %d %s", iter, size)
			require.Len(t, ends, len(offs))
			prev := int64(1)
			for i, w := range want {
				require.Equal(t, string(w), string(got[prev:ends[i+1]]), "iter %d %s string %d", iter, size, i)
				prev = ends[i+1]
			}
			require.Equal(t, prev, int64(len(got)))
		}
	}
}

// FuzzFSSTRun decodes arbitrary codes split at arbitrary (also decreasing or out of range)
// offsets with room for the worst case, the one-run path: it must never panic or write
// out of bounds, and whatever it accepts must equal the naive decode.
func FuzzFSSTRun(f *testing.F) {
	f.Add(uint8(3), []byte("ab\x00\x00\x00\x00\x00\x00cdefghijx"), []byte{2, 8, 1}, []byte{0, 1, 255, 'q', 2, 0, 1, 2}, []byte{0, 3, 8})
	f.Add(uint8(1), []byte("z"), []byte{1}, []byte{0, 255}, []byte{0, 200, 2})
	f.Fuzz(func(t *testing.T, n uint8, symbols, lens, data, cuts []byte) {
		tab, err := ParseFSSTSymbolTable(fuzzFSSTBlob(n, symbols, lens))
		if err != nil || len(cuts) == 0 {
			return
		}
		offs := make([]uint64, len(cuts))
		for i, c := range cuts {
			offs[i] = uint64(c)
		}
		size := FSSTMaxSymbolLen * len(data)
		ends, out, err := tab.AppendStrings(nil, nil, offs, data, size)
		lo, hi := offs[0], offs[len(offs)-1]
		good := lo <= hi && hi <= uint64(len(data))
		for i := 1; good && i < len(offs); i++ {
			good = offs[i] >= offs[i-1]
		}
		if !good {
			if err == nil {
				t.Fatalf("offsets %v over %d bytes accepted", offs, len(data))
			}
			return
		}
		want, ok := decodeNaive(tab, offs, data)
		if ok != (err == nil) {
			t.Fatalf("naive ok %v, AppendStrings error %v", ok, err)
		}
		prev := int64(0)
		for i, w := range want {
			if string(out[prev:ends[i]]) != string(w) {
				t.Fatalf("string %d: %q, want %q", i, out[prev:ends[i]], w)
			}
			prev = ends[i]
		}
	})
}
