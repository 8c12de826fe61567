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

// The one-run decoder (decodeRun: eight codes at a time between escapes, across string
// boundaries) and the string-at-a-time decoder agree with a naive decode on random symbol
// tables (every symbol length 1..8) and codes, with escapes anywhere (also inside a block),
// codes without a symbol, empty strings, strings much shorter and much longer than a block
// and runs of every length, and both report the same strings as corrupt.
func TestFSSTRunMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 1200 {
		nsym := 1 + r.IntN(254)
		if iter%3 == 0 {
			nsym = FSSTEscape // every code has a symbol
		}
		syms := make([][]byte, nsym)
		for i := range syms {
			syms[i] = make([]byte, 1+r.IntN(FSSTMaxSymbolLen))
			for j := range syms[i] {
				syms[i][j] = byte(r.IntN(256))
			}
		}
		tab := &FSSTTable{EncoderSwitch: true, Symbols: syms}
		corrupt := iter%4 == 3
		escapes := []int{0, 10, 200}[iter%3] // one escape in this many codes (0: none)
		maxCodes := []int{3, 30, 200}[(iter/3)%3]
		offs, data := []uint64{0}, []byte{}
		for range r.IntN(60) {
			for range r.IntN(maxCodes + 1) {
				switch k := r.IntN(1000); {
				case escapes > 0 && k < 1000/escapes:
					data = append(data, FSSTEscape, byte(r.IntN(256)))
				case corrupt && k >= 990:
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

// A code without a symbol, or an escape ending a string, at any position of an eight-code
// block and of the run (first, last, in the single-code tail) is reported, whatever the
// string boundaries around it; the same run without the fault decodes.
func TestFSSTRunFaultAnyPosition(t *testing.T) {
	tab := &FSSTTable{EncoderSwitch: true, Symbols: strs("a", "bc", "def", "ghij", "klmno", "pqrstu", "vwxyzAB", "CDEFGHIJ")}
	const nsym = 8
	for _, fault := range []string{"no symbol", "escape at end"} {
		for n := 1; n <= 27; n++ {
			for at := range n {
				for _, split := range []int{1, 3, 8, 100} { // codes a string
					data := make([]byte, n)
					for i := range data {
						data[i] = byte(i % nsym)
					}
					offs := []uint64{0}
					for i := split; i < n; i += split {
						offs = append(offs, uint64(i))
					}
					offs = append(offs, uint64(n))
					_, _, err := tab.AppendStrings(nil, nil, offs, data, FSSTMaxSymbolLen*n)
					require.NoError(t, err, "%s n=%d at=%d split=%d", fault, n, at, split)
					if fault == "no symbol" {
						data[at] = nsym + byte(at%3)
					} else {
						data[at] = FSSTEscape
						if at+1 < n { // make the escape the last byte of its string
							offs = []uint64{0, uint64(at + 1), uint64(n)}
						}
					}
					ends, out, err := tab.AppendStrings([]int64{7}, []byte("x"), offs, data, FSSTMaxSymbolLen*n)
					require.ErrorIs(t, err, ErrCorrupt, "%s n=%d at=%d split=%d", fault, n, at, split)
					require.Equal(t, []int64{7}, ends)
					require.Equal(t, "x", string(out))
				}
			}
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
