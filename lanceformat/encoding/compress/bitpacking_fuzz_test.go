package compress

import (
	"bytes"
	"testing"
)

// FuzzInlineBitpacked checks that DecodeInlineBitpacked never panics on
// arbitrary input, returns exactly n values on success, and that encoding
// the result decodes back to it.
func FuzzInlineBitpacked(f *testing.F) {
	enc, _ := EncodeInlineBitpacked(u32s(1, 2, 3, 400), 32)
	f.Add(enc, uint8(2), uint16(4))
	f.Add([]byte{0, 0}, uint8(1), uint16(1024))
	f.Fuzz(func(t *testing.T, data []byte, ti uint8, n uint16) {
		tw := wordWidths[int(ti)%4]
		out, err := DecodeInlineBitpacked(data, tw, int(n))
		if err != nil {
			return
		}
		if len(out) != int(n)*tw/8 {
			t.Fatalf("got %d bytes for %d values", len(out), n)
		}
		re, err := EncodeInlineBitpacked(out, tw)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeInlineBitpacked(re, tw, int(n))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("re-encode round trip failed: %v", err)
		}
	})
}

// FuzzOutOfLineBitpacked checks DecodeOutOfLineBitpacked on arbitrary input.
func FuzzOutOfLineBitpacked(f *testing.F) {
	enc, w, _ := EncodeOutOfLineBitpacked(make([]byte, 2*1500), 16)
	f.Add(enc, uint8(1), uint8(w), uint16(1500))
	f.Add(make([]byte, 2*(64+10)), uint8(1), uint8(1), uint16(1034))
	f.Fuzz(func(t *testing.T, data []byte, ti, w uint8, n uint16) {
		tw := wordWidths[int(ti)%4]
		out, err := DecodeOutOfLineBitpacked(data, tw, int(w), int(n))
		if err != nil {
			return
		}
		if len(out) != int(n)*tw/8 {
			t.Fatalf("got %d bytes for %d values", len(out), n)
		}
		re, rw, err := EncodeOutOfLineBitpacked(out, tw)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeOutOfLineBitpacked(re, tw, rw, int(n))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("re-encode round trip failed: %v", err)
		}
	})
}
