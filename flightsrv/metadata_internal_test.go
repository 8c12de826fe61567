package flightsrv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMatchPattern(t *testing.T) {
	p := func(s string) *string { return &s }
	cases := []struct {
		pattern *string
		s       string
		want    bool
	}{
		{nil, "anything", true},
		{p("%"), "", true},
		{p("t"), "t", true},
		{p("t"), "tt", false},
		{p("t%"), "trips", true},
		{p("_rips"), "trips", true},
		{p("_rips"), "rips", false},
		{p(`a\_b`), "a_b", true},
		{p(`a\_b`), "axb", false},
		{p("a.b"), "axb", false}, // regexp metacharacters are literal
		{p("%(%"), "f(x)", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, matchPattern(c.pattern, c.s), "pattern %v on %q", c.pattern, c.s)
	}
}
