package compress

import "testing"

// FuzzFlat checks that DecodeFlat never panics and returns exactly
// ceil(n*bits/8) bytes on success.
func FuzzFlat(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, uint64(16), uint16(2))
	f.Add([]byte{0xFF}, uint64(1), uint16(8))
	f.Fuzz(func(t *testing.T, data []byte, bits uint64, n uint16) {
		out, err := DecodeFlat(data, bits, int(n))
		if err != nil {
			return
		}
		if uint64(len(out)) != (uint64(n)*bits+7)/8 {
			t.Fatalf("got %d bytes for %d values of %d bits", len(out), n, bits)
		}
	})
}
