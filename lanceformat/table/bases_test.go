package table_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// fakeOpener opens a dirStore per URI (under its own root) and records the URIs.
type fakeOpener struct {
	root   string
	opened []string
	err    error
}

func (o *fakeOpener) OpenStore(_ context.Context, uri string) (lanceio.ObjectStore, error) {
	o.opened = append(o.opened, uri)
	if o.err != nil {
		return nil, o.err
	}
	return dirStore{Root: o.root}, nil
}

// basesManifest is a manifest with a non-root base (id 1) and a dataset-root base (id 2).
func basesManifest() *table.Manifest {
	p := sampleManifest(3)
	p.BasePaths = []*lancepb.BasePath{
		{Id: 1, Name: proto.String("blobs"), Path: "s3://other/blobs"},
		{Id: 2, Name: proto.String("src"), IsDatasetRoot: true, Path: "/data/src.lance"},
	}
	return &table.Manifest{Path: "t.lance/_versions/3.manifest", Proto: p}
}

func TestBaseLocations(t *testing.T) {
	ctx := context.Background()
	own := dirStore{Root: t.TempDir()}
	m := basesManifest()
	uuid := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	del := func(base *uint32) *lancepb.DataFragment {
		return &lancepb.DataFragment{Id: 7, DeletionFile: &lancepb.DeletionFile{ReadVersion: 2, Id: 99, BaseId: base}}
	}
	for _, tc := range []struct {
		name     string
		locate   func(*table.Dataset) (table.FileLocation, error)
		path     string
		base     string // "" for the dataset's own store
		key, str string
	}{
		{name: "data file in the dataset",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.DataFileLocation(ctx, m, &lancepb.DataFile{Path: "a.lance"})
			},
			path: "t.lance/data/a.lance", key: "t.lance/data/a.lance", str: "t.lance/data/a.lance"},
		{name: "data file under a non-root base",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.DataFileLocation(ctx, m, &lancepb.DataFile{Path: "a.lance", BaseId: proto.Uint32(1)})
			},
			path: "a.lance", base: "s3://other/blobs", key: "s3://other/blobs\x00a.lance", str: "s3://other/blobs/a.lance"},
		{name: "data file under a dataset-root base",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.DataFileLocation(ctx, m, &lancepb.DataFile{Path: "a.lance", BaseId: proto.Uint32(2)})
			},
			path: "data/a.lance", base: "/data/src.lance", key: "/data/src.lance\x00data/a.lance", str: "/data/src.lance/data/a.lance"},
		{name: "deletion file in the dataset",
			locate: func(d *table.Dataset) (table.FileLocation, error) { return d.DeletionFileLocation(ctx, m, del(nil)) },
			path:   "t.lance/_deletions/7-2-99.arrow", key: "t.lance/_deletions/7-2-99.arrow", str: "t.lance/_deletions/7-2-99.arrow"},
		{name: "deletion file under a dataset-root base",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.DeletionFileLocation(ctx, m, del(proto.Uint32(2)))
			},
			path: "_deletions/7-2-99.arrow", base: "/data/src.lance", key: "/data/src.lance\x00_deletions/7-2-99.arrow",
			str: "/data/src.lance/_deletions/7-2-99.arrow"},
		{name: "deletion file under a non-root base",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.DeletionFileLocation(ctx, m, del(proto.Uint32(1)))
			},
			path: "7-2-99.arrow", base: "s3://other/blobs", key: "s3://other/blobs\x007-2-99.arrow", str: "s3://other/blobs/7-2-99.arrow"},
		{name: "index under a dataset-root base",
			locate: func(d *table.Dataset) (table.FileLocation, error) {
				return d.IndexLocation(ctx, m, &lancepb.IndexMetadata{Uuid: &lancepb.UUID{Uuid: uuid}, BaseId: proto.Uint32(2)})
			},
			path: "_indices/01234567-89ab-cdef-0123-456789abcdef/", base: "/data/src.lance",
			key: "/data/src.lance\x00_indices/01234567-89ab-cdef-0123-456789abcdef/",
			str: "/data/src.lance/_indices/01234567-89ab-cdef-0123-456789abcdef/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &fakeOpener{root: t.TempDir()}
			loc, err := tc.locate(table.OpenDataset(own, "t.lance").WithOpener(o))
			require.NoError(t, err)
			require.Equal(t, tc.path, loc.Path)
			require.Equal(t, tc.base, loc.Base)
			require.Equal(t, tc.key, loc.Key())
			require.Equal(t, tc.str, loc.String())
			if tc.base == "" {
				require.Equal(t, own, loc.Store)
				require.Empty(t, o.opened)
			} else {
				require.Equal(t, dirStore{Root: o.root}, loc.Store)
				require.Equal(t, []string{tc.base}, o.opened)
			}
		})
	}
}

func TestBaseLocationErrors(t *testing.T) {
	ctx := context.Background()
	own := dirStore{Root: t.TempDir()}
	m := basesManifest()
	openErr := errors.New("no credentials")
	for _, tc := range []struct {
		name   string
		ds     *table.Dataset
		df     *lancepb.DataFile
		is     error
		errMsg string
	}{
		{name: "base id not in the manifest", ds: table.OpenDataset(own, "t.lance").WithOpener(&fakeOpener{}),
			df: &lancepb.DataFile{Path: "a.lance", BaseId: proto.Uint32(9)}, is: table.ErrCorruptManifest,
			errMsg: "t.lance/_versions/3.manifest (version 3)"},
		{name: "no opener", ds: table.OpenDataset(own, "t.lance"),
			df: &lancepb.DataFile{Path: "a.lance", BaseId: proto.Uint32(1)}, is: table.ErrUnsupportedFeature,
			errMsg: "not supported yet: base paths without a store opener"},
		{name: "opener fails", ds: table.OpenDataset(own, "t.lance").WithOpener(&fakeOpener{err: openErr}),
			df: &lancepb.DataFile{Path: "a.lance", BaseId: proto.Uint32(1)}, is: openErr,
			errMsg: `open base path 1 ("s3://other/blobs")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.ds.DataFileLocation(ctx, m, tc.df)
			require.ErrorIs(t, err, tc.is)
			require.ErrorContains(t, err, tc.errMsg)
		})
	}
	_, err := table.OpenDataset(own, "t.lance").IndexLocation(ctx, m, &lancepb.IndexMetadata{Name: "ix"})
	require.ErrorIs(t, err, table.ErrCorruptManifest)
}
