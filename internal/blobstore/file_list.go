package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Listing a FileStore reads the directories under the prefix (getdents gives each entry's
// type, so no directory is stat'ed), sorts the matching file paths and then stats files in
// path order for their size and modification time: all of them for List, only the first n
// for ListFirst. A point query resolves the latest version of its table with one listing of
// _versions/ per query, so this is on every query's path; with V2 manifest names (newest
// first) ListFirst stats a bounded number of files however long the history is, and a
// directory unchanged since it was last read is not read again (file_listcache.go).

// List implements lanceio.ObjectStore.
func (s *FileStore) List(ctx context.Context, prefix string) ([]lanceio.ObjectInfo, error) {
	return s.list(ctx, prefix, -1)
}

// ListFirst implements lanceio.FirstLister: the first n objects List would return.
func (s *FileStore) ListFirst(ctx context.Context, prefix string, n int) ([]lanceio.ObjectInfo, error) {
	if n <= 0 {
		return nil, fmt.Errorf("list first %d of %s: n must be positive", n, prefix)
	}
	return s.list(ctx, prefix, n)
}

var _ lanceio.FirstLister = (*FileStore)(nil)

// list returns the first n objects under prefix in path order (n < 0: all of them).
func (s *FileStore) list(ctx context.Context, prefix string, n int) ([]lanceio.ObjectInfo, error) {
	// Read from the deepest directory the prefix names, then filter by the full prefix.
	dir := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir = prefix[:i+1]
	}
	paths, cached, err := s.listPaths(ctx, dir, prefix, n)
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	out, vanished, err := s.statPaths(paths, n)
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	if vanished && cached { // changed since the stamp was taken: read the directory
		s.listings.forget(prefix)
		return s.list(ctx, prefix, n)
	}
	return out, nil
}

// statPaths returns the objects at the first n paths (n < 0: all) that are still there;
// vanished reports paths removed since they were listed.
func (s *FileStore) statPaths(paths []string, n int) (out []lanceio.ObjectInfo, vanished bool, err error) {
	size := len(paths)
	if n >= 0 {
		size = min(n, size)
	}
	out = make([]lanceio.ObjectInfo, 0, size)
	for _, p := range paths {
		if n >= 0 && len(out) == n {
			break
		}
		info, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(p)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				vanished = true // removed while listing
				continue
			}
			return nil, false, err
		}
		out = append(out, lanceio.ObjectInfo{Path: p, Size: info.Size(), ModTime: info.ModTime()})
	}
	return out, vanished, nil
}

// listPaths returns the sorted object paths under prefix, whose deepest directory is dir
// ("" or ending in "/"): from the listing cache when the directory is unchanged (only the
// first n are needed; n < 0: all), else by reading the directory, which it then remembers
// when it is the only directory read (file_listcache.go); cached says the paths came from
// the cache. The caller must not modify them.
func (s *FileStore) listPaths(ctx context.Context, dir, prefix string, n int) (paths []string, cached bool, err error) {
	start := s.listings.now()
	stamp, stamped := dirStampOf(filepath.Join(s.root, filepath.FromSlash(dir)))
	if stamped {
		if paths, ok := s.listings.get(prefix, stamp, n); ok {
			return paths, true, ctx.Err()
		}
	}
	dirs, err := s.collect(ctx, dir, prefix, &paths)
	if err != nil {
		return nil, false, err
	}
	sort.Strings(paths)
	if stamped && dirs == 1 {
		s.listings.put(prefix, stamp, start, paths)
	}
	return paths, false, nil
}

// collect appends to paths the object paths under the directory rel ("" for the root, else
// ending in "/") that start with prefix, descending only into directories that can hold
// such paths. A directory that does not exist (any more) holds none. It returns how many
// directories it read.
func (s *FileStore) collect(ctx context.Context, rel, prefix string, paths *[]string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// os.ReadDir opens the directory without registering it with the netpoller (os.Open
	// would: one more system call per listing).
	ents, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return 0, nil // none, a file, or a directory removed while reading it
		}
		return 0, err
	}
	dirs := 1
	for _, e := range ents {
		p := rel + e.Name()
		if e.IsDir() {
			sub := p + "/"
			if strings.HasPrefix(sub, prefix) || strings.HasPrefix(prefix, sub) {
				n, err := s.collect(ctx, sub, prefix, paths)
				if err != nil {
					return 0, err
				}
				dirs += max(n, 1) // a subdirectory counts even when it vanished meanwhile
			}
			continue
		}
		if strings.HasPrefix(e.Name(), tmpPrefix) || !strings.HasPrefix(p, prefix) {
			continue
		}
		*paths = append(*paths, p)
	}
	return dirs, nil
}
