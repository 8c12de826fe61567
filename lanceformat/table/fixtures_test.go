package table_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestOldLanceFixtures opens every dataset of the old-Lance compatibility corpus, reads all
// of its versions, and checks facts documented in the corpus README.
func TestOldLanceFixtures(t *testing.T) {
	root := testutil.SharedFixtures(t)
	ctx := context.Background()
	var datasets []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "_versions" {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			datasets = append(datasets, filepath.ToSlash(rel))
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(datasets), 15)

	store := dirStore{Root: root}
	for _, name := range datasets {
		t.Run(name, func(t *testing.T) {
			ds := table.OpenDataset(store, name)
			entries, err := os.ReadDir(filepath.Join(root, name, "_versions"))
			require.NoError(t, err)
			var want []uint64
			for _, e := range entries {
				if v, _, ok := table.ParseManifestName(e.Name()); ok {
					want = append(want, v)
				}
			}
			vs, err := ds.Versions(ctx)
			require.NoError(t, err)
			require.Len(t, vs, len(want))
			for i, vi := range vs {
				require.Equal(t, want[i], vi.Version) // os.ReadDir sorts; V1 single digits only
				m, err := ds.Checkout(ctx, vi.Version)
				require.NoError(t, err)
				require.Equal(t, vi.Version, m.Version())
				for _, f := range m.Fields() {
					require.NotEmpty(t, f.GetName())
					require.NotEmpty(t, f.GetLogicalType())
				}
			}
			latest, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Equal(t, want[len(want)-1], latest.Version())
			checkFixtureFacts(t, name, latest)
		})
	}
}

func checkFixtureFacts(t *testing.T, name string, m *table.Manifest) {
	switch name {
	case "v0.5.9/no_fragments":
		require.Empty(t, m.Fragments())
	case "0.36.0/btree_in_index_pkg.lance":
		require.Len(t, m.Indices, 1)
		require.True(t, strings.HasSuffix(m.Indices[0].GetIndexDetails().GetTypeUrl(), "BTreeIndexDetails"),
			m.Indices[0].GetIndexDetails().GetTypeUrl())
	case "v0.15.0/v2_with_files.lance":
		require.Equal(t, "2.0", m.DataFormatVersion())
		require.NotEmpty(t, m.Fragments())
	case "v0.15.0/v1_with_files.lance":
		require.Equal(t, "0.1", m.DataFormatVersion())
	case "v0.7.5/with_deletions":
		var withDel int
		for _, f := range m.Fragments() {
			if f.GetDeletionFile() != nil {
				withDel++
			}
		}
		require.Positive(t, withDel, "the v0.7.5 dataset has a deletion file")
	}
}
