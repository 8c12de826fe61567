package compress

import (
	"encoding/binary"
	"testing"
)

// fuzzFSSTBlob builds a symbol table blob with a valid header (n symbols,
// encoder switch on) and fuzzed symbol and length regions.
func fuzzFSSTBlob(n uint8, symbols, lens []byte) []byte {
	blob := make([]byte, FSSTSymbolTableSize)
	binary.LittleEndian.PutUint64(blob, uint64(fsstMagic)<<32|1<<24|uint64(n))
	copy(blob[8:8+8*int(n)], symbols)
	copy(blob[8+8*int(n):], lens)
	return blob
}

// FuzzFSST checks that decoding arbitrary compressed strings under arbitrary
// symbol tables never panics and never expands more than 8x.
func FuzzFSST(f *testing.F) {
	f.Add(uint8(3), []byte("ab\x00\x00\x00\x00\x00\x00cdefghijx"), []byte{2, 8, 1}, []byte{0, 1, 255, 'q', 2}, uint8(3))
	f.Add(uint8(0), []byte{}, []byte{}, []byte{255, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, n uint8, symbols, lens, data []byte, cut uint8) {
		tab, err := ParseFSSTSymbolTable(fuzzFSSTBlob(n, symbols, lens))
		if err != nil {
			return
		}
		c := min(int(cut), len(data))
		offs, out, err := DecodeFSSTStrings(tab, []uint64{0, uint64(c), uint64(len(data))}, data)
		if err != nil {
			return
		}
		if len(offs) != 3 || offs[2] != uint64(len(out)) || len(out) > 8*len(data) {
			t.Fatalf("bad result: offsets %v, %d bytes from %d", offs, len(out), len(data))
		}
		// Re-compressing with the same table must decode to the same bytes.
		re := tab.Compress(nil, out)
		back, err := tab.Decompress(nil, re)
		if err != nil || string(back) != string(out) {
			t.Fatalf("compress/decompress round trip failed: %v", err)
		}
	})
}
