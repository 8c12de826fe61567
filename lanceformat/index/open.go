package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// Index file names (§8).
const (
	btreeLookupFile = "page_lookup.lance"
	btreeDataFile   = "page_data.lance"
	bitmapFile      = "bitmap_page_lookup.lance"
	zoneMapFile     = "zonemap.lance"
	bloomFile       = "bloomfilter.lance"
)

// Index answers queries with one index segment, or with all segments of an index.
// Implementations are safe for concurrent use.
type Index interface {
	// Type is the index type.
	Type() Type
	// Search answers q for the covered fragments.
	Search(ctx context.Context, q Query) (Result, error)
}

// Open opens every segment of info (an index of manifest m) for searching. It reads only
// small lookup structures; page data is read per query. mem allocates the transient Arrow
// arrays read from index files. On datasets with stable row ids (table.FlagStableRowIDs)
// the index files hold row ids, not addresses: Exact results are then sets of row ids
// (RowSet's "fragment" is the id's high 32 bits) that the caller maps to addresses through
// the fragments' row id sequences, and AtMost zones do not apply.
func Open(ctx context.Context, ds *table.Dataset, m *table.Manifest, info Info, mem memory.Allocator) (Index, error) {
	if !info.Type.Supported() {
		return nil, fmt.Errorf("open index %q: %w", info.Name, notSupported("searching %s indices", info.Type))
	}
	if len(info.Fields) != 1 {
		return nil, fmt.Errorf("open index %q: %w", info.Name, notSupported("indices over %d fields", len(info.Fields)))
	}
	sc, err := schema.FromProto(m.Fields())
	if err != nil {
		return nil, fmt.Errorf("open index %q: schema: %w", info.Name, err)
	}
	fld := sc.FieldByID(info.Fields[0])
	if fld == nil {
		return nil, corrupt("index %q: field %d not in schema", info.Name, info.Fields[0])
	}
	multi := &multiIndex{typ: info.Type}
	for _, seg := range info.Segments {
		ix, err := OpenSegment(ctx, ds.Store(), ds.Path(seg.Dir), info.Type, fld.Type, seg.Fragments, mem)
		if err != nil {
			return nil, fmt.Errorf("open index %q segment %s: %w", info.Name, seg.UUID, err)
		}
		multi.segs = append(multi.segs, ix)
	}
	if len(multi.segs) == 1 {
		return multi.segs[0], nil
	}
	return multi, nil
}

// OpenSegment opens one segment whose files are in dir, for a column of type colType.
// covered are the fragments the segment speaks for (Result.Covered).
func OpenSegment(ctx context.Context, store lanceio.ObjectStore, dir string, t Type, colType arrow.DataType,
	covered []uint32, mem memory.Allocator) (Index, error) {
	switch t {
	case TypeBTree:
		return openBTree(ctx, store, dir, covered, mem)
	case TypeBitmap, TypeLabelList:
		return openBitmap(ctx, store, dir, t, covered, mem)
	case TypeZoneMap:
		return openZoneMap(ctx, store, dir, covered, mem)
	case TypeBloomFilter:
		return openBloom(ctx, store, dir, colType, covered, mem)
	}
	return nil, notSupported("searching %s indices", t)
}

// multiIndex combines the segments of one index: results are unions.
type multiIndex struct {
	typ  Type
	segs []Index
}

func (m *multiIndex) Type() Type { return m.typ }

func (m *multiIndex) Search(ctx context.Context, q Query) (Result, error) {
	out := Result{Kind: Exact, Rows: NewRowSet()}
	for _, s := range m.segs {
		r, err := s.Search(ctx, q)
		if err != nil {
			return Result{}, err
		}
		switch r.Kind {
		case NotAnswerable:
			return r, nil
		case AtMost:
			out.Kind = AtMost
			out.Zones = append(out.Zones, r.Zones...)
		case Exact:
			out.Rows.Union(r.Rows)
		}
		out.Covered = append(out.Covered, r.Covered...)
	}
	slices.Sort(out.Covered)
	out.Covered = slices.Compact(out.Covered)
	if out.Kind == AtMost {
		// Exact segments contribute single-row zones.
		for _, a := range out.Rows.Addrs() {
			out.Zones = append(out.Zones, Zone{Fragment: uint32(a >> 32), Start: a & 0xFFFFFFFF, Length: 1})
		}
		for _, f := range out.Rows.Fragments() {
			if out.Rows.IsFull(f) {
				out.Zones = append(out.Zones, Zone{Fragment: f, Length: 1 << 32})
			}
		}
		out.Rows = nil
	}
	return out, nil
}

// indexFile is an opened index file: a Lance v2 file (*file.Reader) or, for BTrees, a
// legacy v1 file (*legacy.Reader, see legacy_open.go).
type indexFile interface {
	Path() string
	NumRows() uint64
	Schema() *schema.Schema
	ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64, mem memory.Allocator) ([]arrow.Array, error)
	Take(ctx context.Context, fieldIDs []int32, rows []uint64, mem memory.Allocator) ([]arrow.Array, error)
}

// openFile opens one index file. Legacy v1 files are read for BTrees only (openLegacyFile);
// for the other index types they are "not supported yet".
func openFile(ctx context.Context, store lanceio.ObjectStore, dir, name string) (indexFile, error) {
	p := path.Join(dir, name)
	r, err := file.Open(ctx, store, p)
	if err != nil {
		if errors.Is(err, file.ErrLegacyFile) {
			return openLegacyFile(ctx, store, p, name)
		}
		if errors.Is(err, encoding.ErrNotSupported) {
			return nil, fmt.Errorf("open %s: %w: %w", p, ErrNotSupported, err)
		}
		if errors.Is(err, file.ErrCorruptFile) {
			return nil, fmt.Errorf("open %s: %w: %w", p, ErrCorruptIndex, err)
		}
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	return r, nil
}

// fieldIDs returns the ids of the named top-level fields of an index file.
func fieldIDs(r indexFile, names ...string) ([]int32, error) {
	ids := make([]int32, len(names))
	for i, n := range names {
		found := false
		for _, f := range r.Schema().Fields {
			if f.Name == n {
				ids[i], found = f.ID, true
				break
			}
		}
		if !found {
			return nil, corrupt("%s: no column %q", r.Path(), n)
		}
	}
	return ids, nil
}

// readColumns reads the named columns of rows [start, end); the caller releases them.
func readColumns(ctx context.Context, r indexFile, start, end uint64, mem memory.Allocator,
	names ...string) ([]arrow.Array, error) {
	ids, err := fieldIDs(r, names...)
	if err != nil {
		return nil, err
	}
	arrs, err := r.ReadRange(ctx, ids, start, end, mem)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.Path(), wrapFileErr(err))
	}
	return arrs, nil
}

// wrapFileErr adds this package's sentinels to file-layer errors.
func wrapFileErr(err error) error {
	switch {
	case errors.Is(err, encoding.ErrNotSupported):
		return fmt.Errorf("%w: %w", ErrNotSupported, err)
	case errors.Is(err, file.ErrCorruptFile), errors.Is(err, legacy.ErrCorruptFile):
		return fmt.Errorf("%w: %w", ErrCorruptIndex, err)
	}
	return err
}

// releaseAll releases arrays.
func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}
