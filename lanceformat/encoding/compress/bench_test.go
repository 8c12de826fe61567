package compress

import (
	"fmt"
	"testing"
)

func BenchmarkFastLanesUnpack(b *testing.B) {
	r := newRand()
	// t/2 for every word width, then the widths TPC-H lineitem columns use (dates,
	// quantities, flags at t=32; part and supplier keys at t=64).
	cases := [][2]int{{8, 4}, {16, 8}, {32, 16}, {64, 32}, {32, 3}, {32, 6}, {32, 14}, {64, 14}, {64, 18}}
	for _, c := range cases {
		tw, w := c[0], c[1]
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

// BenchmarkFSSTAppendStrings decodes a run of comment-like strings (a trained table, a few
// escapes) as a scan of a mini-block chunk does.
func BenchmarkFSSTAppendStrings(b *testing.B) {
	for _, n := range []int{4 << 10, 256 << 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFSSTAppendStrings(b, n) })
	}
}

func benchFSSTAppendStrings(b *testing.B, n int) {
	r := newRand()
	words := strs("carefully", "final", "deposits", "sleep", "furiously", "ironic", "packages",
		"blithely", "regular", "accounts", "quickly", "express", "pending", "~", "requests")
	var in [][]byte
	for range n {
		var s []byte
		for range 1 + r.IntN(5) {
			s = append(s, words[r.IntN(len(words))]...)
			s = append(s, ' ')
		}
		in = append(in, s)
	}
	tab := BuildFSSTTable(in[:512])
	offs, data := tab.CompressAll(in)
	size, err := tab.DecodedSize(offs, data)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, 0, 8*len(data)+8)
	ends := make([]int64, 0, len(in))
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, _, err := tab.AppendStrings(ends[:0], dst[:0], offs, data, 8*len(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendRLE expands 1024 int64 values in runs of 1..7 (TPC-H l_orderkey's
// shape) with u8 run lengths: "typed" with aligned values (typed stores), "runwise" with
// the values one byte off alignment (the run-by-run path).
func BenchmarkAppendRLE(b *testing.B) {
	r := newRand()
	var lengths []byte
	for n := 0; n < 1024; {
		l := min(1+r.IntN(7), 1024-n)
		lengths = append(lengths, byte(l))
		n += l
	}
	buf := randWords(r, len(lengths)+1, 64, 64)
	dst := make([]byte, 0, 1024*8)
	for _, c := range []struct {
		name  string
		shift int
	}{{"typed", 0}, {"runwise", 1}} {
		values := buf[c.shift : c.shift+8*len(lengths)]
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(1024 * 8)
			for b.Loop() {
				if _, err := AppendRLEWidth(dst, values, lengths, 64, 8, 1024); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFSSTPayload decodes 16k short ids with a shared prefix ("payload-%012d", the
// index benchmark's payload column): a few codes a string, so the per-string costs show.
func BenchmarkFSSTPayload(b *testing.B) {
	in := make([][]byte, 16<<10)
	for i := range in {
		in[i] = fmt.Appendf(nil, "payload-%012d", 5000000+i)
	}
	tab := BuildFSSTTable(in[:2048])
	offs, data := tab.CompressAll(in)
	size, err := tab.DecodedSize(offs, data)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d strings, %.1f compressed bytes a string", len(in), float64(len(data))/float64(len(in)))
	dst := make([]byte, 0, 8*len(data)+8)
	ends := make([]int64, 0, len(in))
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, _, err := tab.AppendStrings(ends[:0], dst[:0], offs, data, size); err != nil {
			b.Fatal(err)
		}
	}
}
