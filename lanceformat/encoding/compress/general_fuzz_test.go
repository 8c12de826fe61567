package compress

import "testing"

// FuzzDecompress checks that Decompress never panics and honours the limit
// on arbitrary (zstd and lz4) input.
func FuzzDecompress(f *testing.F) {
	z, _ := Compress(SchemeZstd, 0, []byte("hello hello hello hello"))
	l, _ := Compress(SchemeLZ4, 0, []byte("hello hello hello hello"))
	f.Add(z, true)
	f.Add(l, false)
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, src []byte, zstd bool) {
		scheme := SchemeLZ4
		if zstd {
			scheme = SchemeZstd
		}
		const limit = 1 << 20
		out, err := Decompress(scheme, src, limit)
		if err == nil && len(out) > limit {
			t.Fatalf("output %d bytes over limit", len(out))
		}
	})
}
