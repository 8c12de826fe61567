package compress

import (
	"fmt"
	"testing"
)

func BenchmarkFastLanesUnpack(b *testing.B) {
	r := newRand()
	for _, tw := range wordWidths {
		w := tw / 2
		packed, _ := FastLanesPack(nil, tw, w, randWords(r, 1024, tw, w))
		out := make([]byte, 1024*tw/8)
		b.Run(fmt.Sprintf("t%d_w%d", tw, w), func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			for range b.N {
				if err := FastLanesUnpack(tw, w, packed, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFSSTDecode(b *testing.B) {
	tab := &FSSTTable{EncoderSwitch: true, Symbols: strs("the ", "and ", "lance", "ing", "e", "a")}
	var data []byte
	offs := []uint64{0}
	for range 1000 {
		data = tab.Compress(data, []byte("the lance and the reading of things"))
		offs = append(offs, uint64(len(data)))
	}
	b.SetBytes(int64(35 * 1000))
	for range b.N {
		if _, _, err := DecodeFSSTStrings(tab, offs, data); err != nil {
			b.Fatal(err)
		}
	}
}
