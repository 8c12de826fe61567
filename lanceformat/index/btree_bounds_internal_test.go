package index

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// intBounds.pages lists exactly the pages whose bounds overlap a span, whether the pages
// ascend (binary search) or not (linear pass), and is nil unless every bound is an integer.
func TestIntBoundsPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for iter := range 200 {
		n := 1 + rng.IntN(40)
		pages := make([]btreePage, n)
		at := int64(rng.IntN(20)) - 10
		for i := range pages {
			lo := at
			if iter%2 == 1 { // unordered pages
				lo = int64(rng.IntN(200)) - 100
			}
			hi := lo + int64(rng.IntN(15))
			pages[i] = btreePage{min: value{kind: kInt, i: lo}, max: value{kind: kInt, i: hi}, idx: uint32(i)}
			at = hi + int64(rng.IntN(3))
		}
		ib := newIntBounds(pages)
		require.NotNil(t, ib)
		if iter%2 == 0 {
			require.True(t, ib.sorted)
		}
		var spans []int64Span
		for range 1 + rng.IntN(3) {
			lo := int64(rng.IntN(240)) - 120
			spans = append(spans, int64Span{lo, lo + int64(rng.IntN(30))})
		}
		var want []int
		for i, pg := range pages {
			for _, sp := range spans {
				if pg.max.i >= sp.lo && pg.min.i <= sp.hi {
					want = append(want, i)
					break
				}
			}
		}
		require.Equal(t, want, ib.pages(spans), "iter %d spans %v", iter, spans)
	}
	require.Nil(t, newIntBounds([]btreePage{{min: value{kind: kInt}, max: value{kind: kFloat}}}))
}
