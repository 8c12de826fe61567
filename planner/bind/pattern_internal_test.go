package bind

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
)

// patternCase is one string matched against one pattern by like_escape (esc set) or glob.
type patternCase struct {
	S, P, Esc string
	Glob      bool
}

var patternCases = []patternCase{
	{S: "a_c", P: `a\_c`, Esc: `\`}, {S: "abc", P: `a\_c`, Esc: `\`}, {S: "a%c", P: `a\%c`, Esc: `\`},
	{S: "abbc", P: `a\%c`, Esc: `\`}, {S: "a%c", P: "a#%c", Esc: "#"}, {S: "a#c", P: "a##c", Esc: "#"},
	{S: "abc", P: "a%", Esc: "#"}, {S: "a\nc", P: "a_c", Esc: "#"}, {S: "a.c", P: "a.c", Esc: "#"},
	{S: "abc", P: "a.c", Esc: "#"}, {S: "x(y)", P: "x(_)", Esc: "#"}, {S: "é1", P: "_1", Esc: "#"},
	{S: "abc", P: "abc", Esc: ""}, {S: "a%", P: "a%%", Esc: "%"}, {S: "ab", P: "a%%", Esc: "%"},
	{S: "abc", P: "a*", Glob: true}, {S: "bac", P: "a*", Glob: true}, {S: "abc", P: "a?c", Glob: true},
	{S: "a\nc", P: "a?c", Glob: true}, {S: "abc", P: "a[a-c]c", Glob: true}, {S: "abc", P: "a[!b]c", Glob: true},
	{S: "adc", P: "a[!b]c", Glob: true}, {S: "a*c", P: `a\*c`, Glob: true}, {S: "abc", P: `a\*c`, Glob: true},
	{S: "a[c", P: "a[c", Glob: true}, {S: "a]", P: "a[]]", Glob: true}, {S: "a-", P: "a[a-]", Glob: true},
	{S: "b", P: "[]-c]", Glob: true}, {S: "a", P: `a\`, Glob: true}, {S: "a.b", P: "a.b", Glob: true},
	{S: "axb", P: "a.b", Glob: true}, {S: "ABC", P: "a*", Glob: true}, {S: "a^", P: "a[\\^]", Glob: true},
	{S: "", P: "*", Glob: true}, {S: "x+y", P: "x+y", Glob: true},
	// DuckDBs GLOB matches bytes, the translation characters: non-ASCII ? and [..] differ.
}

// TestPatternTranslationsMatchDuckDB matches every case with the RE2 expression the binder
// builds and with DuckDB's own LIKE ... ESCAPE and GLOB.
func TestPatternTranslationsMatchDuckDB(t *testing.T) {
	in, err := json.Marshal(patternCases)
	require.NoError(t, err)
	script := `
import duckdb, json, sys
cases = json.loads(sys.argv[1])
con = duckdb.connect()
out = []
for c in cases:
    if c["Glob"]:
        r = con.execute("SELECT ? GLOB ?", [c["S"], c["P"]]).fetchone()[0]
    else:
        r = con.execute("SELECT like_escape(?, ?, ?)", [c["S"], c["P"], c["Esc"]]).fetchone()[0]
    out.append(r)
print(json.dumps(out))
`
	raw, err := exec.Command(testutil.Python(t), "-c", script, string(in)).Output()
	require.NoError(t, err)
	var want []bool
	require.NoError(t, json.Unmarshal(raw, &want))
	require.Len(t, want, len(patternCases))
	for i, c := range patternCases {
		var re string
		if c.Glob {
			re = globToRegexp(c.P)
		} else {
			re, err = likeToRegexp(c.P, c.Esc)
			require.NoError(t, err)
		}
		got := regexp.MustCompile(`\A(?:` + re + `)\z`).MatchString(c.S)
		require.Equal(t, want[i], got, "case %+v (regexp %s)", c, re)
	}
}

func TestLikeToRegexpErrors(t *testing.T) {
	tests := []struct{ pat, esc, msg string }{
		{`ab\`, `\`, "must not end with escape character"},
		{"ab", "xy", "Escape string must be empty or one character"},
	}
	for _, tc := range tests {
		_, err := likeToRegexp(tc.pat, tc.esc)
		require.ErrorContains(t, err, tc.msg)
	}
}
