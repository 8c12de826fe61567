package lancecat_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// TestBadTableFiles damages a two-version table in the ways issue 4 lists and checks that
// each is a typed error naming the file, never a panic: a hint past the latest version
// (ignored), a truncated manifest, a missing data file, a missing deletion file.
func TestBadTableFiles(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string, m *table.Manifest)
		check  func(t *testing.T, c catalog.Catalog, m *table.Manifest)
	}{
		{name: "hint past the latest version",
			damage: func(t *testing.T, dir string, _ *table.Manifest) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "t.lance/_versions/latest_version_hint.json"),
					[]byte(`{"version":99}`), 0o644))
			},
			check: func(t *testing.T, c catalog.Catalog, m *table.Manifest) {
				tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{})
				require.NoError(t, err)
				require.Equal(t, m.Version(), tbl.Version())
				_, err = c.LoadTable(ctx, "t", catalog.VersionRef{Version: 99})
				require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
			}},
		{name: "truncated manifest",
			damage: func(t *testing.T, dir string, m *table.Manifest) {
				p := filepath.Join(dir, m.Path)
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o644))
			},
			check: func(t *testing.T, c catalog.Catalog, m *table.Manifest) {
				_, err := c.LoadTable(ctx, "t", catalog.VersionRef{})
				require.ErrorIs(t, err, table.ErrCorruptManifest)
				require.ErrorContains(t, err, m.Path)
				tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{Version: m.Version() - 1})
				require.NoError(t, err, "older versions still open")
				require.Equal(t, m.Version()-1, tbl.Version())
			}},
		{name: "missing data file",
			damage: func(t *testing.T, dir string, m *table.Manifest) {
				require.NoError(t, os.Remove(filepath.Join(dir, "t.lance/data", m.Fragments()[0].GetFiles()[0].GetPath())))
			},
			check: func(t *testing.T, c catalog.Catalog, m *table.Manifest) {
				err := scanErr(t, c)
				require.ErrorIs(t, err, lanceio.ErrNotFound)
				require.ErrorContains(t, err, m.Fragments()[0].GetFiles()[0].GetPath())
				require.ErrorContains(t, err, "version 2")
			}},
		{name: "missing deletion file",
			damage: func(t *testing.T, dir string, m *table.Manifest) {
				f := m.Fragments()[0]
				require.NoError(t, os.Remove(filepath.Join(dir, "t.lance", table.DeletionFilePath(f.GetId(), f.GetDeletionFile()))))
			},
			check: func(t *testing.T, c catalog.Catalog, m *table.Manifest) {
				err := scanErr(t, c)
				require.ErrorIs(t, err, lanceio.ErrNotFound)
				require.ErrorContains(t, err, "_deletions/")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := openCatalog(t, dir)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := kvBatch(mem, rangeK(0, 10)...)
			v, err := c.CreateTable(ctx, "t", kvSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
			b.Release()
			require.NoError(t, err)
			_, err = c.DeleteRows(ctx, "t", v, []uint64{3})
			require.NoError(t, err)
			ds, err := c.Dataset("t")
			require.NoError(t, err)
			m, err := ds.Latest(ctx)
			require.NoError(t, err)
			require.Equal(t, uint64(2), m.Version())
			tc.damage(t, dir, m)
			tc.check(t, openCatalog(t, dir), m)
		})
	}
}

// scanErr scans the latest version of table t and returns the first error.
func scanErr(t *testing.T, c catalog.Catalog) error {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := c.LoadTable(ctx, "t", catalog.VersionRef{})
	if err != nil {
		return err
	}
	req := catalog.ScanRequest{Columns: allColumns(tbl), Limit: -1}
	ms, err := tbl.Morsels(ctx, req)
	if err != nil {
		return err
	}
	for _, m := range ms {
		rr, err := tbl.Scan(ctx, req, m, mem)
		if err != nil {
			return err
		}
		for {
			b, err := rr.Next(ctx)
			if err != nil {
				_ = rr.Close()
				return err
			}
			if b == nil {
				break
			}
			b.Release()
		}
		require.NoError(t, rr.Close())
	}
	t.Fatal("the scan did not fail")
	return nil
}
