package plantest

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite expected outputs in testdata files")

// Case is one block of a testdata file:
//
//	# comments
//	<command>
//	<input lines>
//	----
//	<expected output lines>
//
// Blocks are separated by blank lines; expected output never contains blank lines.
type Case struct {
	Command  string
	Input    string
	Expected string
	line     int
}

// RunFile runs every case of a testdata file through run and compares the result with
// the expected output. With -rewrite it writes the actual outputs back into the file.
func RunFile(t *testing.T, path string, run func(t *testing.T, c Case) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cases, comments := parseCases(string(data))
	var out strings.Builder
	for i := range cases {
		c := &cases[i]
		t.Run(strings.SplitN(c.Input, "\n", 2)[0], func(t *testing.T) {
			got := strings.TrimRight(run(t, *c), "\n")
			if *rewrite {
				c.Expected = got
				return
			}
			require.Equal(t, c.Expected, got, "%s:%d", path, c.line)
		})
	}
	if *rewrite {
		for i, c := range cases {
			out.WriteString(comments[i])
			out.WriteString(c.Command + "\n" + c.Input + "\n----\n" + c.Expected + "\n\n")
		}
		require.NoError(t, os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644))
	}
}

// parseCases splits a testdata file into cases and the comment lines before each.
func parseCases(data string) ([]Case, []string) {
	var cases []Case
	var comments []string
	var pending strings.Builder
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "#"):
			pending.WriteString(line + "\n")
			continue
		}
		c := Case{Command: strings.TrimSpace(line), line: i + 1}
		var input, expected []string
		i++
		for ; i < len(lines) && lines[i] != "----"; i++ {
			input = append(input, lines[i])
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			expected = append(expected, lines[i])
		}
		c.Input = strings.Join(input, "\n")
		c.Expected = strings.Join(expected, "\n")
		cases = append(cases, c)
		comments = append(comments, pending.String())
		pending.Reset()
	}
	return cases, comments
}

// ReadCases returns the cases of a testdata file.
func ReadCases(t *testing.T, path string) []Case {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cases, _ := parseCases(string(data))
	return cases
}
