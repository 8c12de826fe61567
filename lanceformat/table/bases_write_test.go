package table_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// linkOpener opens a linkStore rooted at the local directory a base path names.
var linkOpener = lanceio.OpenerFunc(func(_ context.Context, uri string) (lanceio.ObjectStore, error) {
	return linkStore{dirStore: dirStore{Root: uri}, tmp: os.TempDir()}, nil
})

// basedDatasets writes two datasets with the commit path: src (ids 0..9, id 1 deleted) and
// dst (ids 100..104), then commits by hand a dst version 2 that registers src's root as base
// 1 and dst's own root as base 2, adds src's fragment 0 (data and deletion file under base 1)
// and moves dst's own fragment, renumbered 1, to base 2 (a base pointing into the root).
func basedDatasets(t *testing.T, mem memory.Allocator) (dst *table.Dataset, srcDir, dstDir string) {
	ctx := context.Background()
	srcStore, srcDir := newLinkStore(t)
	dstStore, dstDir := newLinkStore(t)
	src, dst := table.OpenDataset(srcStore, ""), table.OpenDataset(dstStore, "").WithOpener(linkOpener)
	b0, b1 := idNameBatch(mem, 0, 10), idNameBatch(mem, 100, 5)
	defer release(b0, b1)
	wo := table.WriteOptions{Allocator: mem}
	_, err := src.Create(ctx, idNameSchema, []arrow.RecordBatch{b0}, &table.CreateOptions{Write: wo})
	require.NoError(t, err)
	sm, err := src.DeleteRows(ctx, 1, map[uint64][]uint32{0: {1}}, "id = 1")
	require.NoError(t, err)
	dm, err := dst.Create(ctx, idNameSchema, []arrow.RecordBatch{b1}, &table.CreateOptions{Write: wo})
	require.NoError(t, err)

	m := proto.Clone(dm.Proto).(*lancepb.Manifest)
	m.Version, m.TransactionFile, m.TransactionSection, m.IndexSection = 2, "", nil, nil
	m.BasePaths = []*lancepb.BasePath{
		{Id: 1, Name: proto.String("src"), IsDatasetRoot: true, Path: srcDir},
		{Id: 2, Name: proto.String("self"), IsDatasetRoot: true, Path: dstDir},
	}
	m.Fragments[0].Id = 1 // fragment 0 is src's (deletion file names hold fragment ids)
	for _, df := range m.Fragments[0].Files {
		df.BaseId = proto.Uint32(2)
	}
	f := proto.Clone(sm.Fragments()[0]).(*lancepb.DataFragment)
	for _, df := range f.Files {
		df.BaseId = proto.Uint32(1)
	}
	f.DeletionFile.BaseId = proto.Uint32(1)
	m.Fragments = append([]*lancepb.DataFragment{f}, m.Fragments...)
	m.MaxFragmentId = proto.Uint32(1)
	m.ReaderFeatureFlags = table.FlagDeletionFiles | table.FlagBasePaths
	m.WriterFeatureFlags = m.ReaderFeatureFlags
	data, err := table.EncodeManifest(m)
	require.NoError(t, err)
	require.NoError(t, dstStore.PutIfAbsent(ctx, "_versions/"+table.ManifestName(table.NamingV2, 2), data))
	return dst, srcDir, dstDir
}

// TestCommitsAndCleanupWithBases: deletes of rows in a file under a base write the merged
// deletion file to the root, appends write to the root, every commit keeps the base paths,
// flag 16 and the base ids of untouched files, and Cleanup neither touches the other base
// nor removes a file of the root that a kept version reads through a base naming the root.
func TestCommitsAndCleanupWithBases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := memtest.NewChecked(t)
	defer mem.AssertSize(t, 0)
	ds, srcDir, dstDir := basedDatasets(t, mem)
	srcFiles := append(listFiles(t, srcDir, "data"), listFiles(t, srcDir, "_deletions")...)
	require.Len(t, srcFiles, 2)

	m, err := ds.DeleteRows(ctx, 2, map[uint64][]uint32{0: {2}, 1: {4}}, "id = 2 OR id = 104")
	require.NoError(t, err)
	require.Equal(t, uint64(3), m.Version())
	f := m.Fragments()[0]
	require.Equal(t, uint32(1), f.GetFiles()[0].GetBaseId(), "the data file stays under its base")
	require.Nil(t, f.GetDeletionFile().BaseId, "the new deletion file is in the root")
	dv, err := ds.ReadFragmentDeletions(ctx, m, f)
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 2}, dv.Offsets(), "merged with the deletion file under the base")
	require.FileExists(t, filepath.Join(dstDir, table.DeletionFilePath(0, f.GetDeletionFile())))
	require.Equal(t, uint32(2), m.Fragments()[1].GetFiles()[0].GetBaseId())

	b := idNameBatch(mem, 200, 2)
	defer b.Release()
	m, err = ds.Append(ctx, []arrow.RecordBatch{b}, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	require.Len(t, m.Proto.GetBasePaths(), 2)
	require.Equal(t, table.FlagDeletionFiles|table.FlagBasePaths, m.Proto.GetReaderFeatureFlags())
	require.Equal(t, table.FlagDeletionFiles|table.FlagBasePaths, m.Proto.GetWriterFeatureFlags())
	require.Nil(t, m.Fragments()[2].GetFiles()[0].BaseId)
	want := []int64{0, 3, 4, 5, 6, 7, 8, 9, 100, 101, 102, 103, 200, 201}
	require.Equal(t, want, pylanceViews(t, dstDir, 0)[0].IDs)

	m = addColumnOnBases(t, ds, mem)
	for i, f := range m.Fragments() {
		require.Len(t, f.GetFiles(), 2)
		require.Nil(t, f.GetFiles()[1].BaseId, "the new column's file is in the root")
		require.Equal(t, []uint32{1, 2, 0}[i], f.GetFiles()[0].GetBaseId(), "fragment %d keeps its base", f.GetId())
	}
	wantZ := []string{"0", "3", "4", "5", "6", "7", "8", "9", "1000", "1001", "1002", "1003", "2000", "2001"}

	st, err := ds.Cleanup(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 4, st.Manifests)
	require.Equal(t, 0, st.DataFiles, "dst's first data file is read through base 2 and kept")
	require.Equal(t, append(listFiles(t, srcDir, "data"), listFiles(t, srcDir, "_deletions")...), srcFiles)
	views := pylanceViews(t, dstDir, 0)
	require.Equal(t, []uint64{5}, views[0].Versions)
	require.Equal(t, want, views[0].IDs)
	require.Equal(t, [][]string{wantZ}, views[0].Extra)
}

// addColumnOnBases adds column z = fragment id * 1000 + row offset to the latest version.
func addColumnOnBases(t *testing.T, ds *table.Dataset, mem memory.Allocator) *table.Manifest {
	ctx := context.Background()
	v, err := ds.LatestVersion(ctx)
	require.NoError(t, err)
	zs := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64}}, nil)
	fill := func(_ context.Context, frag, n uint64) ([]arrow.RecordBatch, error) {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range n {
			b.Append(int64(frag*1000 + i))
		}
		col := b.NewArray()
		defer col.Release()
		return []arrow.RecordBatch{array.NewRecordBatch(zs, []arrow.Array{col}, int64(n))}, nil
	}
	m, err := ds.AddColumns(ctx, v, zs, fill, &table.WriteOptions{Allocator: mem})
	require.NoError(t, err)
	return m
}

// TestWritingToBasePaths: a version with base paths can be written on; with stable row ids
// too, but only by the operations that support them.
func TestWritingToBasePaths(t *testing.T) {
	m := basesManifest()
	m.Proto.WriterFeatureFlags = table.FlagBasePaths
	require.NoError(t, table.CheckWritable(m))
	m.Proto.WriterFeatureFlags |= table.FlagStableRowIDs
	err := table.CheckWritable(m)
	require.ErrorIs(t, err, table.ErrUnsupportedFeature)
	require.ErrorContains(t, err, "with stable row ids")
	require.NoError(t, table.CheckWritableFor(m, "append"))
	require.NoError(t, table.CheckWritableFor(m, "rewrite"))
	err = table.CheckWritableFor(m, "create_index")
	require.ErrorIs(t, err, table.ErrUnsupportedFeature)
	require.ErrorContains(t, err, "not supported yet: create_index with stable row ids")
	m.Proto.WriterFeatureFlags |= 1 << 20
	require.ErrorIs(t, table.CheckWritableFor(m, "append"), table.ErrUnsupportedFeature, "unknown writer flag")
}
