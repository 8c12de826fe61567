package compress

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// refExpandRLE expands runs value by value until n values are produced; ok is false when
// the runs hold fewer than n values.
func refExpandRLE(values, lengths []byte, bw, n int) ([]byte, bool) {
	var out []byte
	for r, l := range lengths {
		for range int(l) {
			if len(out) == n*bw {
				return out, true
			}
			out = append(out, values[r*bw:(r+1)*bw]...)
		}
	}
	return out, len(out) == n*bw
}

// AppendRLEWidth with u8 run lengths (typed stores for aligned 4- and 8-byte values, run
// by run otherwise) matches a value-by-value expansion for every width, aligned or not,
// with zero-length runs, short and long runs, runs past n, and too few runs (an error, dst
// unchanged).
func TestAppendRLETypedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, tw := range wordWidths {
		bw := tw / 8
		for _, shift := range []int{0, 1, bw} {
			for _, short := range []bool{false, true} {
				t.Run(fmt.Sprintf("t%d_shift%d_short%v", tw, shift, short), func(t *testing.T) {
					runs := 1 + r.IntN(400)
					lengths := make([]byte, runs)
					total := 0
					for i := range lengths {
						lengths[i] = byte(r.IntN(9)) // includes empty runs
						if r.IntN(10) == 0 {
							lengths[i] = byte(r.IntN(256)) // and long ones
						}
						total += int(lengths[i])
					}
					n := max(1, total-r.IntN(5)) // the last runs may reach past n
					if short {
						n = total + 1 + r.IntN(3)
					}
					valBuf := make([]byte, shift+runs*bw)
					for i := range valBuf {
						valBuf[i] = byte(r.Uint32())
					}
					values := valBuf[shift:]
					prefix := bytes.Repeat([]byte{0x5a}, shift)
					dst := append(make([]byte, 0, shift+n*bw+16), prefix...)
					got, err := AppendRLEWidth(dst, values, lengths, tw, 8, n)
					want, ok := refExpandRLE(values, lengths, bw, n)
					if !ok {
						require.ErrorIs(t, err, ErrCorrupt)
						require.Equal(t, prefix, got)
						return
					}
					require.NoError(t, err)
					require.Equal(t, append(append([]byte{}, prefix...), want...), got)
				})
			}
		}
	}
}
