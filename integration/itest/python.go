package itest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
)

// ScriptOutput runs a script from integration/testdata with the interpreter py and returns its
// stdout. It is safe to call from any goroutine (it needs no testing.T).
func ScriptOutput(root, py, script string, args ...string) ([]byte, error) {
	path := filepath.Join(root, "integration", "testdata", script)
	cmd := exec.Command(py, append([]string{path}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w: %s", script, args, err, stderr.String())
	}
	return out, nil
}

// RunScript runs a script from integration/testdata with the pinned interpreter.
func RunScript(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	out, err := ScriptOutput(testutil.RepoRoot(t), testutil.Python(t), script, args...)
	require.NoError(t, err)
	return out
}

// WriteTables writes the skeleton tables with pylance into a fresh root and returns it: t has
// a int64 (shuffled, every 37th NULL), b utf8, c float64, 1000 rows in two fragments.
func WriteTables(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	RunScript(t, "make_tables.py", root)
	return root
}
