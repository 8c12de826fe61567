// Package lanceiotest holds test helpers for lanceio.ObjectStore users.
package lanceiotest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// DirStore is a lanceio.ObjectStore over the local directory Root, for lanceformat's tests
// (lanceformat must not import internal/blobstore). PutIfAbsent is not atomic across
// processes: tests that race writers use internal/blobstore instead.
type DirStore struct{ Root string }

// ReadRange reads n bytes at off of object p.
func (s DirStore) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("read %s: invalid range offset %d length %d", p, off, n)
	}
	buf := make([]byte, n)
	if err := s.ReadRangeInto(ctx, p, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRangeInto implements lanceio.RangeIntoReader: it reads len(buf) bytes at off of
// object p into buf.
func (s DirStore) ReadRangeInto(_ context.Context, p string, off int64, buf []byte) error {
	f, err := os.Open(filepath.Join(s.Root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", p, lanceio.ErrNotFound)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.ReadAt(buf, off); err != nil {
		return fmt.Errorf("read %s [%d,+%d): %w", p, off, len(buf), err)
	}
	return nil
}

// Size is the size of object p.
func (s DirStore) Size(_ context.Context, p string) (int64, error) {
	st, err := os.Stat(filepath.Join(s.Root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("size %s: %w", p, lanceio.ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// List returns the objects whose path starts with prefix, sorted by path.
func (s DirStore) List(_ context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	var out []lanceio.ObjectInfo
	err := filepath.WalkDir(s.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(s.Root, p)
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

// Put writes object p, creating its directories.
func (s DirStore) Put(_ context.Context, p string, data []byte) error {
	full := filepath.Join(s.Root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// PutIfAbsent writes object p unless it exists (lanceio.ErrAlreadyExists).
func (s DirStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if _, err := s.Size(ctx, p); err == nil {
		return fmt.Errorf("put %s: %w", p, lanceio.ErrAlreadyExists)
	}
	return s.Put(ctx, p, data)
}

// Delete removes object p.
func (s DirStore) Delete(_ context.Context, p string) error {
	err := os.Remove(filepath.Join(s.Root, p))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", p, lanceio.ErrNotFound)
	}
	return err
}
