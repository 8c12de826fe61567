package table_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/table"
)

// listFiles lists the files under dir/sub, relative to dir.
func listFiles(t *testing.T, dir, sub string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(filepath.Join(dir, sub), func(p string, info os.FileInfo, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestCleanupKeepsLatestAndTagged removes old versions and their files but never what the
// latest or a tagged version needs, nor anything newer than the bound.
func TestCleanupKeepsLatestAndTagged(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b0, b1, b2, b3 := idNameBatch(mem, 0, 10), idNameBatch(mem, 10, 10), idNameBatch(mem, 50, 5), idNameBatch(mem, 60, 5)
	defer release(b0, b1, b2, b3)
	wo := table.WriteOptions{Allocator: mem}
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b0}, &table.CreateOptions{Write: wo}) // v1
	require.NoError(t, err)
	_, err = ds.Append(ctx, []arrow.RecordBatch{b1}, &wo) // v2
	require.NoError(t, err)
	_, err = ds.DeleteRows(ctx, 2, map[uint64][]uint32{1: {0}}, "") // v3
	require.NoError(t, err)
	require.NoError(t, ds.CreateTag(ctx, "keep", 1))
	_, err = ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b2}, &table.CreateOptions{Mode: table.CreateOrOverwrite, Write: wo}) // v4
	require.NoError(t, err)
	_, err = ds.Append(ctx, []arrow.RecordBatch{b3}, &wo) // v5
	require.NoError(t, err)
	require.Len(t, listFiles(t, dir, "data"), 4)
	require.Len(t, listFiles(t, dir, "_deletions"), 1)

	st, err := ds.Cleanup(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, table.CleanupStats{}, st, "nothing is older than the bound")

	st, err = ds.Cleanup(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 3, st.Manifests)
	require.Equal(t, 1, st.DataFiles)
	require.Equal(t, 1, st.DeletionFiles)
	require.Equal(t, 3, st.TransactionFiles)
	require.Positive(t, st.Bytes)
	require.Len(t, listFiles(t, dir, "data"), 3)
	require.Empty(t, listFiles(t, dir, "_deletions"))
	require.Len(t, listFiles(t, dir, "_transactions"), 2)

	views := pylanceViews(t, dir, 0, 1)
	require.Equal(t, []uint64{1, 5}, views[0].Versions)
	require.Equal(t, append(seq(50, 5), seq(60, 5)...), views[0].IDs)
	require.Equal(t, seq(0, 10), views[1].IDs)
}

func release(bs ...arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// TestLargeDeleteWritesBitmapAndFlagsRefused: more than 5000 deleted rows go to a Roaring
// deletion file that pylance reads; on a dataset with stable row ids, operations that do
// not support them yet (restore) are refused.
func TestLargeDeleteWritesBitmapAndFlagsRefused(t *testing.T) {
	t.Parallel()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ds, dir := newDataset(t)
	b := idNameBatch(mem, 0, 6000)
	defer b.Release()
	_, err := ds.Create(ctx, idNameSchema, []arrow.RecordBatch{b}, &table.CreateOptions{Write: table.WriteOptions{Allocator: mem}})
	require.NoError(t, err)
	rows := make([]uint32, 5500)
	for i := range rows {
		rows[i] = uint32(i)
	}
	m, err := ds.DeleteRows(ctx, 1, map[uint64][]uint32{0: rows}, "id < 5500")
	require.NoError(t, err)
	del := m.Fragments()[0].GetDeletionFile()
	require.True(t, strings.HasSuffix(table.DeletionFilePath(0, del), ".bin"))
	require.Equal(t, seq(5500, 500), pylanceViews(t, dir, 0)[0].IDs)

	_, err = ds.DeleteRows(ctx, 2, map[uint64][]uint32{0: {6000}}, "")
	require.ErrorIs(t, err, table.ErrInvalidWrite, "offset past the fragment")
	_, err = ds.DeleteRows(ctx, 2, map[uint64][]uint32{7: {0}}, "")
	require.ErrorIs(t, err, table.ErrInvalidWrite, "no such fragment")
	wrong := idNameBatch(mem, 0, 1)
	defer wrong.Release()
	rs := wrong.Schema()
	renamed := arrow.NewSchema([]arrow.Field{rs.Field(1), rs.Field(0)}, nil)
	swapped := arrowBatch(renamed, wrong.Column(1), wrong.Column(0))
	defer swapped.Release()
	_, err = ds.Append(ctx, []arrow.RecordBatch{swapped}, &table.WriteOptions{Allocator: mem})
	require.ErrorIs(t, err, table.ErrInvalidWrite, "columns out of order")

	pyDir, _ := pylanceDatasets(t)
	s := table.OpenDataset(readOnlyStore{dirStore{Root: pyDir}}, "stable.lance")
	_, err = s.Restore(ctx, 1)
	require.ErrorIs(t, err, table.ErrUnsupportedFeature)
	require.ErrorContains(t, err, "not supported yet: restore with stable row ids")
}
