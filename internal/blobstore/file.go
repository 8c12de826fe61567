package blobstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// tmpPrefix starts the names of FileStore's temporary files. List never shows them.
const tmpPrefix = ".flightd-tmp-"

// FileStore is a lanceio.ObjectStore over a local directory.
//
// Writes go to a temporary file in the target's directory first. Put then renames it over
// the target; PutIfAbsent hard-links it to the target (link(2) fails with EEXIST if the
// target exists, atomically across processes) and removes the temporary name.
//
// Reads of Lance data files (*.lance, immutable once written) share open handles from a
// bounded LRU (maxOpenHandles) and use ReadAt, so a Take issuing thousands of small ranged
// reads does not open and close the file each time; other objects are opened per read.
// Close releases the handles (they are also closed when the store is garbage collected).
type FileStore struct {
	root     string
	handles  *handleCache
	listings *listCache // file_listcache.go
}

// NewFileStore returns a store rooted at dir, which is created if missing.
func NewFileStore(dir string) (*FileStore, error) {
	if dir == "" {
		return nil, errors.New("open file store: empty path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open file store %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("open file store %s: %w", dir, err)
	}
	return &FileStore{root: abs, handles: newHandleCache(maxOpenHandles), listings: newListCache()}, nil
}

// Close closes the store's cached read handles. Reads in progress finish first; the store
// stays usable (later reads open files again).
func (s *FileStore) Close() error {
	s.handles.closeAll()
	return nil
}

// Root is the absolute directory the store is rooted at.
func (s *FileStore) Root() string { return s.root }

// local maps an object path to a file path, rejecting paths that escape the root.
func (s *FileStore) local(p string) (string, error) {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == ".." ||
		strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("invalid object path %q", p)
	}
	if strings.HasPrefix(path.Base(p), tmpPrefix) {
		return "", fmt.Errorf("invalid object path %q: reserved name", p)
	}
	return filepath.Join(s.root, filepath.FromSlash(p)), nil
}

func mapOSError(op, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: %w", op, p, lanceio.ErrNotFound)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s %s: %w", op, p, lanceio.ErrAlreadyExists)
	default:
		return fmt.Errorf("%s %s: %w", op, p, err)
	}
}

// ReadRange implements lanceio.ObjectStore.
func (s *FileStore) ReadRange(ctx context.Context, p string, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("read %s: invalid range offset %d length %d", p, off, n)
	}
	buf := make([]byte, n)
	if err := s.ReadRangeInto(ctx, p, off, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ReadRangeInto implements lanceio.RangeIntoReader: it reads len(buf) bytes at off into
// buf, so callers can reuse their buffers.
func (s *FileStore) ReadRangeInto(ctx context.Context, p string, off int64, buf []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lp, err := s.local(p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if off < 0 {
		return fmt.Errorf("read %s: invalid range offset %d length %d", p, off, len(buf))
	}
	var m int
	if cacheable(p) {
		h, err := s.handles.acquire(lp)
		if err != nil {
			return mapOSError("read", p, err)
		}
		m, err = h.f.ReadAt(buf, off)
		s.handles.release(h)
		return readAtError(p, off, buf, m, err)
	}
	f, err := os.Open(lp)
	if err != nil {
		return mapOSError("read", p, err)
	}
	defer func() { _ = f.Close() }() // read side: a close error cannot lose data
	m, err = f.ReadAt(buf, off)
	return readAtError(p, off, buf, m, err)
}

// readAtError is the error of a ReadAt of buf at off that read m bytes: nil when it
// filled buf (io.EOF right at the end included).
func readAtError(p string, off int64, buf []byte, m int, err error) error {
	if err != nil && (!errors.Is(err, io.EOF) || m != len(buf)) {
		return fmt.Errorf("read %s [%d,+%d): %w", p, off, len(buf), err)
	}
	return nil
}

// Size implements lanceio.ObjectStore.
func (s *FileStore) Size(ctx context.Context, p string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	lp, err := s.local(p)
	if err != nil {
		return 0, fmt.Errorf("size %s: %w", p, err)
	}
	st, err := os.Stat(lp)
	if err != nil {
		return 0, mapOSError("size", p, err)
	}
	if st.IsDir() {
		return 0, fmt.Errorf("size %s: %w (a directory)", p, lanceio.ErrNotFound)
	}
	return st.Size(), nil
}

// writeTemp writes data to a new temporary file beside lp and returns its name.
func writeTemp(lp string, data []byte) (string, error) {
	dir := filepath.Dir(lp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, tmpPrefix+filepath.Base(lp)+"-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Put implements lanceio.ObjectStore.
func (s *FileStore) Put(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lp, err := s.local(p)
	if err != nil {
		return fmt.Errorf("put %s: %w", p, err)
	}
	tmp, err := writeTemp(lp, data)
	if err != nil {
		return fmt.Errorf("put %s: %w", p, err)
	}
	if err := os.Rename(tmp, lp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("put %s: %w", p, err)
	}
	s.handles.invalidate(lp)
	return nil
}

// PutIfAbsent implements lanceio.ObjectStore.
func (s *FileStore) PutIfAbsent(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lp, err := s.local(p)
	if err != nil {
		return fmt.Errorf("put if absent %s: %w", p, err)
	}
	tmp, err := writeTemp(lp, data)
	if err != nil {
		return fmt.Errorf("put if absent %s: %w", p, err)
	}
	// The temporary name goes whether or not the link won; a leftover is hidden from List.
	defer func() { _ = os.Remove(tmp) }()
	if err := os.Link(tmp, lp); err != nil {
		return mapOSError("put if absent", p, err)
	}
	return nil
}

// Delete implements lanceio.ObjectStore.
func (s *FileStore) Delete(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lp, err := s.local(p)
	if err != nil {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	if st, err := os.Stat(lp); err == nil && st.IsDir() {
		return fmt.Errorf("delete %s: %w (a directory)", p, lanceio.ErrNotFound)
	}
	s.handles.invalidate(lp)
	if err := os.Remove(lp); err != nil {
		return mapOSError("delete", p, err)
	}
	return nil
}

var (
	_ lanceio.ObjectStore     = (*FileStore)(nil)
	_ lanceio.RangeIntoReader = (*FileStore)(nil)
)
