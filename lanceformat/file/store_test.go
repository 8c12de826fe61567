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

func (s dirStore) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	buf := make([]byte, n)
	if err := s.ReadRangeInto(ctx, path, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRangeInto implements lanceio.RangeIntoReader, as the server's stores do.
func (s dirStore) ReadRangeInto(_ context.Context, path string, off int64, buf []byte) error {
	f, err := os.Open(filepath.Join(s.root, path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, lanceio.ErrNotFound)
		}
		return err
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s [%d,+%d): past the end", path, off, len(buf))
		}
		return err
	}
	return nil
}

// rangeOnly hides a store's ReadRangeInto, so reads take lanceio.ReadInto's fallback.
type rangeOnly struct{ lanceio.ObjectStore }

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
