package index

import (
	"context"
	"crypto/rand"
	"fmt"
	"path"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// WriteOptions tunes index writing; zero fields take Lance's defaults.
type WriteOptions struct {
	// FileVersion of the index files (default 2.0, which every Lance reader accepts).
	FileVersion file.Version
	// BTreeBatchSize is the BTree page size in rows (default 4096).
	BTreeBatchSize int
	// RowsPerZone is the zone size of zone maps (default 8192).
	RowsPerZone int
	// BloomItems is the zone size and expected distinct values of bloom filters (default 8192).
	BloomItems int
	// BloomProbability is the bloom filter false-positive rate (default 0.00057).
	BloomProbability float64
}

func (o *WriteOptions) withDefaults() WriteOptions {
	var w WriteOptions
	if o != nil {
		w = *o
	}
	if w.FileVersion == 0 {
		w.FileVersion = file.V2_0
	}
	if w.BTreeBatchSize <= 0 {
		w.BTreeBatchSize = defaultBTreeBatch
	}
	if w.RowsPerZone <= 0 {
		w.RowsPerZone = 8192
	}
	if w.BloomItems <= 0 {
		w.BloomItems = 8192
	}
	if w.BloomProbability <= 0 || w.BloomProbability >= 1 {
		w.BloomProbability = 0.00057
	}
	return w
}

// Built is a written index segment: its files are in Dir; Metadata gives the IndexMetadata
// a CreateIndex transaction commits.
type Built struct {
	UUID string
	// Dir is the segment directory relative to the dataset root.
	Dir          string
	Type         Type
	IndexVersion int32
	// Files are the written files (names relative to Dir) and sizes.
	Files []File
	// Fragments are the covered fragments, ascending.
	Fragments []uint32
	// Rows is the number of rows indexed (live rows of the covered fragments).
	Rows int64
	// Details is the serialized index_details message (empty for these types).
	Details []byte
}

// Metadata is the IndexMetadata (§3.6) to commit for this segment.
func (b *Built) Metadata(name string, fieldID int32, datasetVersion uint64) *lancepb.IndexMetadata {
	id, _ := parseUUID(b.UUID) // b.UUID was produced by newUUID
	ver := b.IndexVersion
	created := uint64(time.Now().UnixMilli())
	md := &lancepb.IndexMetadata{
		Uuid: &lancepb.UUID{Uuid: id}, Fields: []int32{fieldID}, Name: name, DatasetVersion: datasetVersion,
		FragmentBitmap: table.EncodeRoaring(b.Fragments),
		IndexDetails:   &anypb.Any{TypeUrl: detailsURL(b.Type), Value: b.Details},
		IndexVersion:   &ver, CreatedAt: &created,
	}
	for _, f := range b.Files {
		md.Files = append(md.Files, &lancepb.IndexFile{Path: f.Path, SizeBytes: f.SizeBytes})
	}
	return md
}

// Build trains an index of type t on field fieldID of manifest m and writes its files
// under the dataset's _indices/. It returns the segment and the IndexMetadata to commit
// (dataset_version = m's version).
func Build(ctx context.Context, ds *table.Dataset, m *table.Manifest, name string, fieldID int32, t Type,
	opts *WriteOptions, mem memory.Allocator) (*Built, *lancepb.IndexMetadata, error) {
	return BuildFragments(ctx, ds, m, name, fieldID, t, nil, opts, mem)
}

// BuildFragments is Build over the fragments of m whose ids are in frags only (all
// fragments when frags is nil): the segment covers exactly those fragments. Incremental
// maintenance builds a delta segment this way over the fragments no segment covers yet.
// It fails with an error wrapping ErrNoData when there is no such fragment.
func BuildFragments(ctx context.Context, ds *table.Dataset, m *table.Manifest, name string, fieldID int32, t Type,
	frags []uint64, opts *WriteOptions, mem memory.Allocator) (*Built, *lancepb.IndexMetadata, error) {
	if m.Proto.GetReaderFeatureFlags()&table.FlagStableRowIDs != 0 {
		return nil, nil, fmt.Errorf("build index %q: %w", name, notSupported("indices of datasets with stable row ids"))
	}
	col, err := ReadFragmentsColumn(ctx, ds, m, fieldID, frags, mem)
	if err != nil {
		return nil, nil, fmt.Errorf("build index %q: %w", name, err)
	}
	defer col.Release()
	b, err := Write(ctx, ds.Store(), ds.Path(""), t, col, opts, mem)
	if err != nil {
		return nil, nil, fmt.Errorf("build index %q: %w", name, err)
	}
	return b, b.Metadata(name, fieldID, m.Version()), nil
}

// Write writes a new index segment of type t over col under root/_indices/{uuid}/.
func Write(ctx context.Context, store lanceio.ObjectStore, root string, t Type, col *Column,
	opts *WriteOptions, mem memory.Allocator) (*Built, error) {
	o := opts.withDefaults()
	if col.Values.Len() != len(col.Addrs) {
		return nil, fmt.Errorf("write %s index: %d values but %d row addresses", t, col.Values.Len(), len(col.Addrs))
	}
	id, err := newUUID()
	if err != nil {
		return nil, err
	}
	b := &Built{UUID: id, Dir: path.Join("_indices", id), Type: t, Fragments: col.Fragments, Rows: int64(len(col.Addrs))}
	w := &indexWriter{ctx: ctx, store: store, dir: path.Join(root, b.Dir), opts: o, mem: mem, built: b}
	switch t {
	case TypeBTree:
		err = w.btree(col)
	case TypeBitmap:
		err = w.bitmap(col.Values, col.Addrs, nil)
	case TypeLabelList:
		err = w.labelList(col)
	case TypeZoneMap:
		err = w.zoneMap(col)
	case TypeBloomFilter:
		err = w.bloom(col)
	default:
		err = notSupported("writing %s indices", t)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s index %s: %w", t, id, err)
	}
	return b, nil
}

// indexWriter writes the files of one segment.
type indexWriter struct {
	ctx   context.Context
	store lanceio.ObjectStore
	dir   string
	opts  WriteOptions
	mem   memory.Allocator
	built *Built
}

// writeFile writes one index file holding cols under schema as and records it.
func (w *indexWriter) writeFile(name string, as *arrow.Schema, cols []arrow.Array) error {
	sc, err := schema.FromArrow(as, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fw, err := file.NewWriter(w.ctx, w.store, path.Join(w.dir, name), sc, w.opts.FileVersion, file.WithAllocator(w.mem))
	if err != nil {
		return err
	}
	rows := 0
	if len(cols) > 0 {
		rows = cols[0].Len()
	}
	rec := array.NewRecordBatch(as, cols, int64(rows))
	err = fw.Write(w.ctx, rec)
	rec.Release()
	if err != nil {
		_, _ = fw.Close(w.ctx)
		return fmt.Errorf("%s: %w", name, err)
	}
	info, err := fw.Close(w.ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	w.built.Files = append(w.built.Files, File{Path: name, SizeBytes: info.Size})
	return nil
}

// newUUID returns a random (version 4) hyphenated UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new index uuid: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b[:]), nil
}
