package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
)

// TestSQLWrites runs writes with `flightd sql`, in process and against a server
// (ExecuteUpdate), and checks the counts it prints and the rows after them.
func TestSQLWrites(t *testing.T) {
	py := testutil.Python(t)
	root := t.TempDir()
	gen := exec.Command(py, filepath.Join("..", "..", "integration", "testdata", "make_tables.py"), root)
	outGen, err := gen.CombinedOutput()
	require.NoError(t, err, string(outGen))
	sql := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"sql"}, args...), &out, &errOut)
		require.NoError(t, err, errOut.String())
		return out.String()
	}

	require.Equal(t, "2 rows affected\n", sql("--root", root, "INSERT INTO t (a, b) VALUES (-1, 'new'), (-2, NULL)"))
	require.Equal(t, "1 row affected\n", sql("--root", root, "UPDATE t SET b = 'changed' WHERE a = -2"))
	require.Equal(t, "a  | b\n---+--------\n-2 | changed\n-1 | new\n(2 rows)\n", sql("--root", root, "SELECT a, b FROM t WHERE a < 0 ORDER BY a"))

	ctx, cancel := context.WithCancel(context.Background())
	r, w, err := os.Pipe()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--root", root, "--addr", "127.0.0.1:0"}, w, io.Discard) }()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	addr := strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0]

	require.Equal(t, "2 rows affected\n", sql("--server", addr, "DELETE FROM t WHERE a < 0"))
	require.Equal(t, "0 rows affected\n", sql("--server", addr, "DELETE FROM t WHERE a < 0"))
	require.Equal(t, "count_star()\n------------\n0\n(1 rows)\n", sql("--server", addr, "SELECT count(*) FROM t WHERE a < 0"))

	cancel()
	require.NoError(t, <-done)
	w.Close()
	r.Close()
}
