package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// TestSumPass: one fused pass over k lanes (k = 1..6: three or six columns, the missing
// ones zero) with the row count, the left-out rows taken out again, gives per group the
// sums and counts of a row-by-row reference, for odd and even row counts, with or without
// an include mask (left-out rows in any group), into a reused buffer holding junk.
func TestSumPass(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1001} {
		for k := 1; k <= fusedLanes; k++ {
			for _, masked := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/k=%d/masked=%v", n, k, masked), func(t *testing.T) {
					const ng = 5
					groups := make([]int32, n)
					include := make([]bool, n)
					lanes := make([][]int64, k)
					for j := range lanes {
						lanes[j] = make([]int64, n)
					}
					wantSums := make([][]int64, k)
					for j := range wantSums {
						wantSums[j] = make([]int64, ng)
					}
					wantCounts := make([]int64, ng)
					for i := range n {
						groups[i] = int32(r.IntN(ng)) // for a left-out row: whatever group it was given
						include[i] = !masked || r.IntN(3) > 0
						for j := range k {
							lanes[j][i] = r.Int64N(2_000_001) - 1_000_000
							if include[i] {
								wantSums[j][groups[i]] += lanes[j][i]
							}
						}
						if include[i] {
							wantCounts[groups[i]]++
						}
					}
					buf := make([]int64, 3, 200)
					for i := range buf[:cap(buf)] {
						buf[:cap(buf)][i] = 77 // junk from a previous batch
					}
					partial, w := sumPass(buf, ng, groups, lanes, make([]int64, n), kernel.MaskUnset(nil, include))
					require.Equal(t, map[bool]int{true: 4, false: 7}[k <= 3], w)
					for j := range k {
						require.Equal(t, wantSums[j], foldSlots(nil, partial, ng, w, j), "lane %d", j)
					}
					require.Equal(t, wantCounts, foldSlots(nil, partial, ng, w, w-1))
				})
			}
		}
	}
}
