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

	"github.com/flightd/flightd/internal/testutil"
	"github.com/stretchr/testify/require"
)

func TestServeRefusesMissingRoot(t *testing.T) {
	var out, errOut bytes.Buffer
	missing := filepath.Join(t.TempDir(), "nope")
	err := run(context.Background(), []string{"serve", "--root", missing, "--addr", "127.0.0.1:0"}, &out, &errOut)
	require.Error(t, err)
	require.Contains(t, err.Error(), "does not exist")
	require.Contains(t, err.Error(), missing)
}

func TestServeRefusesNoAuthOffLoopback(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"serve", "--root", t.TempDir(), "--addr", "0.0.0.0:0"}, &out, &errOut)
	require.ErrorContains(t, err, "without authentication")
}

func TestUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	require.ErrorContains(t, run(context.Background(), []string{"frobnicate"}, &out, &errOut), `unknown command "frobnicate"`)
	require.Contains(t, errOut.String(), "usage:")
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"version"}, &out, &out))
	require.True(t, strings.HasPrefix(out.String(), "flightd "))
}

// TestSQLOnPylanceTable runs `flightd sql` on a table written by pylance.
func TestSQLOnPylanceTable(t *testing.T) {
	py := testutil.Python(t)
	root := t.TempDir()
	gen := exec.Command(py, filepath.Join("..", "..", "integration", "testdata", "make_tables.py"), root)
	outGen, err := gen.CombinedOutput()
	require.NoError(t, err, string(outGen))

	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"sql", "--root", root, "SELECT a, b FROM t WHERE a < 3 ORDER BY a"}, &out, &errOut)
	require.NoError(t, err, errOut.String())
	require.Equal(t, "a | b\n--+-----\n1 | s001\n2 | s002\n(2 rows)\n", out.String())

	err = run(context.Background(), []string{"sql", "--root", root, "SELECT * FROM missing"}, &out, &errOut)
	require.ErrorContains(t, err, "missing")
}

// TestSQLAgainstServer runs `flightd sql --server` against a running server.
func TestSQLAgainstServer(t *testing.T) {
	py := testutil.Python(t)
	root := t.TempDir()
	gen := exec.Command(py, filepath.Join("..", "..", "integration", "testdata", "make_tables.py"), root)
	outGen, err := gen.CombinedOutput()
	require.NoError(t, err, string(outGen))

	ctx, cancel := context.WithCancel(context.Background())
	r, w, err := os.Pipe()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--root", root, "--addr", "127.0.0.1:0"}, w, io.Discard) }()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	addr := strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0]

	var out bytes.Buffer
	err = run(context.Background(), []string{"sql", "--server", addr, "SELECT count(*) FROM t WHERE a < 10"}, &out, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "count_star()\n------------\n9\n(1 rows)\n", out.String())

	cancel()
	require.NoError(t, <-done)
	w.Close()
	r.Close()
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "2GiB": 2 << 30, "1GB": 1e9, "7 KiB": 7 << 10} {
		got, err := parseBytes(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-1", "lots", "1.5GiB", "99999999999TiB"} {
		_, err := parseBytes(bad)
		require.Error(t, err, bad)
	}
}
