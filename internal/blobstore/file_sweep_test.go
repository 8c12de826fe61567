package blobstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
)

// TestFileStoreSweepTemp checks that SweepTemp removes only temporary files older than the
// cutoff under the prefix, and leaves objects alone.
func TestFileStoreSweepTemp(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-time.Hour)
	cases := []struct {
		name    string
		prefix  string
		removed int
		left    []string // temporary files left, relative to the root
	}{
		{"whole store", "", 2, []string{"t.lance/data/.flightd-tmp-young"}},
		{"one table", "t.lance/", 1, []string{"t.lance/data/.flightd-tmp-young", "u.lance/_versions/.flightd-tmp-old"}},
		{"missing prefix", "v.lance/", 0, []string{"t.lance/data/.flightd-tmp-old", "t.lance/data/.flightd-tmp-young", "u.lance/_versions/.flightd-tmp-old"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := blobstore.NewFileStore(dir)
			require.NoError(t, err)
			require.NoError(t, s.Put(ctx, "t.lance/data/a.lance", []byte("data")))
			for _, p := range []string{"t.lance/data/.flightd-tmp-old", "u.lance/_versions/.flightd-tmp-old", "t.lance/data/.flightd-tmp-young"} {
				lp := filepath.Join(dir, filepath.FromSlash(p))
				require.NoError(t, os.MkdirAll(filepath.Dir(lp), 0o755))
				require.NoError(t, os.WriteFile(lp, []byte("partial"), 0o644))
				if filepath.Base(p) == ".flightd-tmp-old" {
					require.NoError(t, os.Chtimes(lp, old, old))
				}
			}
			n, err := s.SweepTemp(ctx, tc.prefix, time.Now().Add(-time.Minute))
			require.NoError(t, err)
			require.Equal(t, tc.removed, n)
			var left []string
			require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Base(p)[0] == '.' {
					rel, _ := filepath.Rel(dir, p)
					left = append(left, filepath.ToSlash(rel))
				}
				return err
			}))
			require.Equal(t, tc.left, left)
			got, err := s.ReadRange(ctx, "t.lance/data/a.lance", 0, 4)
			require.NoError(t, err)
			require.Equal(t, "data", string(got))
		})
	}
}
