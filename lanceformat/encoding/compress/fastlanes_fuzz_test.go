package compress

import (
	"bytes"
	"testing"
)

// FuzzFastLanes checks that unpacking arbitrary packed bytes never panics and
// that packing the result reproduces the packed bytes exactly (every packed
// bit is significant).
func FuzzFastLanes(f *testing.F) {
	f.Add(make([]byte, 128*3), uint8(2), uint8(3))
	f.Add(bytes.Repeat([]byte{0xA5}, 128*64), uint8(3), uint8(64))
	f.Fuzz(func(t *testing.T, packed []byte, ti, w uint8) {
		tw := wordWidths[int(ti)%4]
		out := make([]byte, 1024*tw/8)
		if err := FastLanesUnpack(tw, int(w), packed, out); err != nil {
			return
		}
		re, err := FastLanesPack(nil, tw, int(w), out)
		if err != nil {
			t.Fatalf("pack after unpack: %v", err)
		}
		if !bytes.Equal(re, packed[:128*int(w)]) {
			t.Fatalf("t=%d w=%d: repack differs", tw, w)
		}
	})
}
