package compress

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// BenchmarkFSSTSample decodes runs of real strings (one a line) from the file named by
// FLIGHTD_FSST_SAMPLE, e.g. TPC-H l_comment values, in runs of several lengths as mini-block
// chunks hold them. It skips without the variable.
func BenchmarkFSSTSample(b *testing.B) {
	path := os.Getenv("FLIGHTD_FSST_SAMPLE")
	if path == "" {
		b.Skip("FLIGHTD_FSST_SAMPLE not set")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	in := bytes.Split(raw, []byte("\n"))
	built := BuildFSSTTable(in[:4096])
	offs, data := built.CompressAll(in)
	blob, err := built.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	tab, err := ParseFSSTSymbolTable(blob) // with its decode table, as scans use it
	if err != nil {
		b.Fatal(err)
	}
	size, err := tab.DecodedSize(offs, data)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d symbols, %d strings, %.2f codes a string, %.2f bytes a string", len(tab.Symbols), len(in),
		float64(len(data))/float64(len(in)), float64(size)/float64(len(in)))
	dst := make([]byte, 0, 8*len(data)+8)
	ends := make([]int64, 0, len(in))
	for _, run := range []int{300, 3000} {
		b.Run(fmt.Sprint(run), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				ends, dst = ends[:0], dst[:0]
				for lo := 0; lo < len(in); lo += run {
					o := offs[lo : min(lo+run, len(in))+1]
					if ends, dst, err = tab.AppendStrings(ends, dst, o, data, 8*int(o[len(o)-1]-o[0])); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
