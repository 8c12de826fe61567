package index_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio/lanceiotest"
)

// dirStore is the lanceio test store over a local directory.
type dirStore = lanceiotest.DirStore

// oracle runs testdata/pylance_oracle.py with the given command, stdin and directory.
func oracle(t testing.TB, cmd, dir string, stdin any) []byte {
	t.Helper()
	c := exec.Command(testutil.Python(t), filepath.Join("testdata", "pylance_oracle.py"), cmd, dir)
	if stdin != nil {
		in, err := json.Marshal(stdin)
		require.NoError(t, err)
		c.Stdin = bytes.NewReader(in)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	require.NoError(t, err, "pylance_oracle.py %s: %s", cmd, stderr.String())
	return out
}

var (
	sharedOnce sync.Once
	sharedDir  string
	sharedErr  error
)

// sharedDataset builds the pylance dataset of pylance_oracle.py once per test binary.
// Tests must not modify it.
func sharedDataset(t *testing.T) string {
	t.Helper()
	py := testutil.Python(t)
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "index-oracle-")
		if err != nil {
			sharedErr = err
			return
		}
		sharedDir = filepath.Join(dir, "ds.lance")
		c := exec.Command(py, filepath.Join("testdata", "pylance_oracle.py"), "build", sharedDir)
		if out, err := c.CombinedOutput(); err != nil {
			sharedErr = fmt.Errorf("build: %w: %s", err, out)
		}
	})
	require.NoError(t, sharedErr)
	return sharedDir
}

// truth is pylance's answer (a full scan, no index) to every predCase.
type truth struct {
	Live    []uint64            `json:"live"`
	Results map[string][]uint64 `json:"results"`
}

var (
	truthOnce sync.Once
	truthVal  truth
	truthErr  error
)

// sharedTruth answers predCases with pylance scans of the shared dataset, once. The plain
// dataset (build_plain) has the same rows and row addresses, so its truth is the same.
func sharedTruth(t *testing.T) truth {
	t.Helper()
	dir := sharedDataset(t)
	truthOnce.Do(func() {
		var sqls []string
		for _, c := range predCases {
			sqls = append(sqls, c.sql)
		}
		in, err := json.Marshal(sqls)
		if err != nil {
			truthErr = err
			return
		}
		c := exec.Command(testutil.Python(t), filepath.Join("testdata", "pylance_oracle.py"), "query", dir)
		c.Stdin = bytes.NewReader(in)
		out, err := c.Output()
		if err != nil {
			truthErr = fmt.Errorf("query: %w", err)
			return
		}
		truthErr = json.Unmarshal(out, &truthVal)
	})
	require.NoError(t, truthErr)
	return truthVal
}

var (
	plainOnce sync.Once
	plainDir  string
	plainErr  error
)

// plainCopy returns a fresh copy of the dataset without indices (build_plain), built once.
func plainCopy(t *testing.T) string {
	t.Helper()
	py := testutil.Python(t)
	plainOnce.Do(func() {
		dir, err := os.MkdirTemp("", "index-plain-")
		if err != nil {
			plainErr = err
			return
		}
		plainDir = filepath.Join(dir, "plain.lance")
		c := exec.Command(py, filepath.Join("testdata", "pylance_oracle.py"), "build_plain", plainDir)
		if out, err := c.CombinedOutput(); err != nil {
			plainErr = fmt.Errorf("build_plain: %w: %s", err, out)
		}
	})
	require.NoError(t, plainErr)
	dst := filepath.Join(t.TempDir(), "plain.lance")
	require.NoError(t, os.CopyFS(dst, os.DirFS(plainDir)))
	return dst
}

// TestMain checks for leaked goroutines and removes the shared datasets after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	for _, d := range []string{sharedDir, plainDir} {
		if d != "" {
			os.RemoveAll(filepath.Dir(d))
		}
	}
	os.Exit(code)
}
