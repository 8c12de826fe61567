package kernel

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLikeSegmentsDifferential compares the matcher NewLikeMatcher picks (the %-segment
// matcher for patterns with several %, no _) with the general matcher on random strings
// and patterns over a small alphabet with a multi-byte letter, so overlaps are frequent.
func TestLikeSegmentsDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	word := func(alpha []string, n int) string {
		var b strings.Builder
		for range rng.IntN(n + 1) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		return b.String()
	}
	segmentPatterns := 0
	for range 3000 {
		p := word([]string{"a", "b", "ä", "%", "%"}, 7)
		if !strings.Contains(p, "_") && strings.Count(p, "%") >= 2 {
			segmentPatterns++
		}
		m := NewLikeMatcher(p)
		for range 10 {
			s := word([]string{"a", "b", "ä"}, 8)
			require.Equal(t, likeMatch(s, p), m.Match(s), "%q LIKE %q", s, p)
		}
	}
	require.Greater(t, segmentPatterns, 500)
	require.True(t, NewLikeMatcher("%special%requests%").Match("xx special yy requests"))
	require.False(t, NewLikeMatcher("%special%requests%").Match("requests special"))
	require.False(t, NewLikeMatcher("a%a").Match("a"))
	require.True(t, NewLikeMatcher("a%a").Match("aa"))
}
