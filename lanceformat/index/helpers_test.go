package index_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// dirStore is a lanceio.ObjectStore over a local directory, for tests (lanceformat must
// not import internal/blobstore).
type dirStore struct{ root string }

func (s dirStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(s.root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", p, lanceio.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("read %s [%d,+%d): %w", p, off, n, err)
	}
	return buf, nil
}

func (s dirStore) Size(_ context.Context, p string) (int64, error) {
	st, err := os.Stat(filepath.Join(s.root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("size %s: %w", p, lanceio.ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (s dirStore) List(_ context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	var out []lanceio.ObjectInfo
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(s.root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, prefix) {
			info, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, lanceio.ObjectInfo{Path: rel, Size: info.Size(), ModTime: info.ModTime()})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

func (s dirStore) Put(_ context.Context, p string, data []byte) error {
	full := filepath.Join(s.root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

func (s dirStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if _, err := s.Size(ctx, p); err == nil {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	return s.Put(ctx, p, data)
}

func (s dirStore) Delete(_ context.Context, p string) error {
	err := os.Remove(filepath.Join(s.root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", p, lanceio.ErrNotFound)
	}
	return err
}

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
