package table_test

import (
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

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// dirStore is a minimal lanceio.ObjectStore over a local directory for these tests
// (lanceformat must not import internal/blobstore).
type dirStore struct{ root string }

func (s dirStore) ReadRange(_ context.Context, p string, off, n int64) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", p, lanceio.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("read %s: range past end", p)
	}
	return b[off : off+n], nil
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

// fragExpect, dsExpect mirror the JSON printed by testdata/make_datasets.py.
type fragExpect struct {
	ID           uint64 `json:"id"`
	PhysicalRows uint64 `json:"physical_rows"`
	LiveRows     uint64 `json:"live_rows"`
}

type dsExpect struct {
	Latest    uint64       `json:"latest"`
	Versions  []uint64     `json:"versions"`
	Fragments []fragExpect `json:"fragments"`
	Rows      uint64       `json:"rows"`
	Format    string       `json:"format"`
}

var (
	pyOnce   sync.Once
	pyDir    string
	pyExpect map[string]dsExpect
	pyErr    error
)

// pylanceDatasets writes the test datasets once per test binary with pylance and returns
// their directory and the expectations. Tests skip when the venv is missing.
func pylanceDatasets(t *testing.T) (string, map[string]dsExpect) {
	t.Helper()
	pyOnce.Do(func() {
		py := testutil.Python(t)
		pyDir, pyErr = os.MkdirTemp("", "lance-table-test-")
		if pyErr != nil {
			return
		}
		cmd := exec.Command(py, "testdata/make_datasets.py", pyDir)
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			pyErr = err
			return
		}
		pyErr = json.Unmarshal(out, &pyExpect)
	})
	require.NoError(t, pyErr)
	return pyDir, pyExpect
}
