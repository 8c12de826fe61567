package compress

import (
	"bytes"
	"testing"
)

// FuzzByteStreamSplit checks DecodeByteStreamSplit on arbitrary input and
// that encoding inverts it.
func FuzzByteStreamSplit(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, true, uint16(2))
	f.Add(make([]byte, 16), false, uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, f32 bool, n uint16) {
		tw := 64
		if f32 {
			tw = 32
		}
		out, err := DecodeByteStreamSplit(data, tw, int(n))
		if err != nil {
			return
		}
		re, err := EncodeByteStreamSplit(out, tw)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(re, data[:len(re)]) {
			t.Fatalf("encode does not invert decode")
		}
	})
}
