package kernel_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// TestMaskUnset: the positions not set in a mask, found a word at a time, are those of a
// row-by-row reference, for masks of every length (tails of 0-7 rows) and density (none set,
// all set, runs, scattered), and buf's storage is reused.
func TestMaskUnset(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 16, 63, 1000} {
		for _, keep := range []int{0, 50, 99, 100} { // percent of rows set
			t.Run(fmt.Sprintf("n=%d/keep=%d", n, keep), func(t *testing.T) {
				mask := make([]bool, n)
				var want []int32
				for i := range mask {
					mask[i] = r.IntN(100) < keep
					if !mask[i] {
						want = append(want, int32(i))
					}
				}
				buf := make([]int32, 3, 2000)
				got := kernel.MaskUnset(buf, mask)
				require.Equal(t, len(want), len(got))
				if len(want) > 0 {
					require.Equal(t, want, got)
					require.Same(t, &buf[:1][0], &got[0], "buf's storage is reused")
				}
			})
		}
	}
}
