package compress

import (
	"bytes"
	"testing"
)

// FuzzRLE checks DecodeRLEWidth on arbitrary run buffers (u8 or u16 run
// lengths) and that re-encoding a successful result decodes to the same
// values; it also feeds the concatenation to DecodeRLEBlock.
func FuzzRLE(f *testing.F) {
	v, l, _ := EncodeRLE(u32s(1, 1, 1, 2, 2, 3), 32)
	f.Add(v, l, uint8(2), false, uint16(6))
	f.Add([]byte{7}, []byte{255}, uint8(0), false, uint16(255))
	f.Add([]byte{7, 0}, []byte{0, 1}, uint8(1), true, uint16(256))
	f.Fuzz(func(t *testing.T, values, lengths []byte, ti uint8, wide bool, n uint16) {
		tw := wordWidths[int(ti)%4]
		lenBits := 8
		if wide {
			lenBits = 16
		}
		_, _ = DecodeRLEBlock(append(values, lengths...), tw, lenBits, int(n))
		out, err := DecodeRLEWidth(values, lengths, tw, lenBits, int(n))
		if err != nil {
			return
		}
		if len(out) != int(n)*tw/8 {
			t.Fatalf("got %d bytes for %d values", len(out), n)
		}
		blk, err := EncodeRLEBlock(out, tw, lenBits)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeRLEBlock(blk, tw, lenBits, int(n))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}
