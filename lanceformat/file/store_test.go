package file_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// dirStore is a read-only lanceio.ObjectStore over a local directory, for tests.
type dirStore struct{ root string }

var errReadOnly = errors.New("dirStore is read-only")

func (s dirStore) ReadRange(_ context.Context, path string, off, n int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(s.root, path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, lanceio.ErrNotFound)
		}
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s [%d,+%d): past the end", path, off, n)
		}
		return nil, err
	}
	return buf, nil
}

func (s dirStore) Size(_ context.Context, path string) (int64, error) {
	st, err := os.Stat(filepath.Join(s.root, path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("%s: %w", path, lanceio.ErrNotFound)
		}
		return 0, err
	}
	return st.Size(), nil
}

func (s dirStore) List(context.Context, string) ([]lanceio.ObjectInfo, error) {
	return nil, errReadOnly
}
func (s dirStore) Put(context.Context, string, []byte) error         { return errReadOnly }
func (s dirStore) PutIfAbsent(context.Context, string, []byte) error { return errReadOnly }
func (s dirStore) Delete(context.Context, string) error              { return errReadOnly }

// memStore is an in-memory read-only store of one object, for fuzzing.
type memStore map[string][]byte

func (m memStore) ReadRange(_ context.Context, path string, off, n int64) ([]byte, error) {
	b, ok := m[path]
	if !ok {
		return nil, lanceio.ErrNotFound
	}
	if off < 0 || n < 0 || off+n > int64(len(b)) {
		return nil, fmt.Errorf("read [%d,+%d) past %d", off, n, len(b))
	}
	return b[off : off+n], nil
}

func (m memStore) Size(_ context.Context, path string) (int64, error) {
	b, ok := m[path]
	if !ok {
		return 0, lanceio.ErrNotFound
	}
	return int64(len(b)), nil
}

func (m memStore) List(context.Context, string) ([]lanceio.ObjectInfo, error) {
	return nil, errReadOnly
}
func (m memStore) Put(context.Context, string, []byte) error         { return errReadOnly }
func (m memStore) PutIfAbsent(context.Context, string, []byte) error { return errReadOnly }
func (m memStore) Delete(context.Context, string) error              { return errReadOnly }
