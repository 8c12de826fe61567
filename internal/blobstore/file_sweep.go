package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

var _ lanceio.TempSweeper = (*FileStore)(nil)

// SweepTemp implements lanceio.TempSweeper: it removes FileStore temporary files (left by writers
// killed between creating and renaming or linking them) under directory prefix that were last
// modified before olderThan. Writes in flight are younger than any sensible cutoff.
func (s *FileStore) SweepTemp(ctx context.Context, prefix string, olderThan time.Time) (int, error) {
	start := s.root
	if dir := strings.TrimSuffix(prefix, "/"); dir != "" {
		var err error
		if start, err = s.local(dir); err != nil {
			return 0, fmt.Errorf("sweep temporary files %s: %w", prefix, err)
		}
	}
	n := 0
	err := filepath.WalkDir(start, func(lp string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), tmpPrefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // its writer finished meanwhile
		}
		if err != nil || !info.ModTime().Before(olderThan) {
			return err
		}
		if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("sweep temporary files %s: %w", prefix, err)
	}
	return n, nil
}
