package lancecat

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/file/legacy"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// morselRows is the largest number of physical rows in one morsel.
const morselRows = 1 << 20

// Table is one Lance table at one version. It is immutable and safe for concurrent use.
type Table struct {
	name   string
	ds     *table.Dataset
	m      *table.Manifest
	schema *schema.Schema
	arrow  *arrow.Schema
	frags  map[uint64]int               // morsel key (fragment id) -> index in m.Fragments()
	keys   []uint64                     // index in m.Fragments() -> morsel key
	files  *byteCache[string, dataFile] // the catalog's data-file readers, by FileLocation.Key
	blocks *file.BlockCache             // the catalog's page-bytes cache; nil: none

	mu        sync.Mutex
	deletions map[int]*table.DeletionVector // loaded lazily per fragment index

	idx indexState // scalar indexes and memoized selections (index.go)
}

func newTable(name string, ds *table.Dataset, m *table.Manifest, files *byteCache[string, dataFile]) (*Table, error) {
	sc, err := schema.FromProto(m.Fields())
	if err != nil {
		return nil, fmt.Errorf("table %q version %d: schema: %w", name, m.Version(), err)
	}
	if md := m.Proto.GetSchemaMetadata(); len(md) > 0 {
		sc.Metadata = make(map[string]string, len(md))
		for k, v := range md {
			sc.Metadata[k] = string(v)
		}
	}
	t := &Table{
		name: name, ds: ds, m: m, schema: sc, arrow: sc.ToArrow(),
		frags: make(map[uint64]int, len(m.Fragments())),
		files: files, deletions: map[int]*table.DeletionVector{},
	}
	t.keys = morselKeys(m)
	for i, k := range t.keys {
		t.frags[k] = i
	}
	return t, nil
}

// morselKeys returns the key each fragment's morsels carry: its id, except that a repeated
// id (old writers, e.g. v0.16 fixtures, committed two fragments with one id) gets a key past
// the largest id, so that every fragment is scanned, as Lance does.
func morselKeys(m *table.Manifest) []uint64 {
	frags := m.Fragments()
	var top uint64
	for _, f := range frags {
		top = max(top, f.GetId())
	}
	keys := make([]uint64, len(frags))
	seen := make(map[uint64]bool, len(frags))
	for i, f := range frags {
		keys[i] = f.GetId()
		if seen[keys[i]] {
			top++
			keys[i] = top
		}
		seen[keys[i]] = true
	}
	return keys
}

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Version implements catalog.Table.
func (t *Table) Version() uint64 { return t.m.Version() }

// Schema implements catalog.Table.
func (t *Table) Schema() *arrow.Schema { return t.arrow }

// Manifest is the manifest of this snapshot.
func (t *Table) Manifest() *table.Manifest { return t.m }

// Stats implements catalog.Table. Rows is -1 when a fragment does not record its physical
// row count or its number of deleted rows (very old writers).
func (t *Table) Stats() catalog.Stats {
	st := catalog.Stats{Fragments: len(t.m.Fragments())}
	for _, f := range t.m.Fragments() {
		del := f.GetDeletionFile()
		if f.GetPhysicalRows() == 0 || (del != nil && del.GetNumDeletedRows() == 0) {
			st.Rows = -1
			return st
		}
		st.Rows += int64(f.GetPhysicalRows() - del.GetNumDeletedRows())
	}
	return st
}

// Morsels implements catalog.Table: one morsel per fragment, split into ranges of at most
// 1Mi physical rows. With a limit, morsels stop once they hold enough live rows.
func (t *Table) Morsels(ctx context.Context, req catalog.ScanRequest) ([]catalog.Morsel, error) {
	if ms, ok, err := t.indexMorsels(ctx, req); ok || err != nil {
		return ms, err
	}
	var out []catalog.Morsel
	var live int64
	for fi, f := range t.m.Fragments() {
		if req.Limit >= 0 && live >= req.Limit {
			break
		}
		n, err := t.physicalRows(ctx, fi)
		if err != nil {
			return nil, err
		}
		for start := int64(0); start < n; start += morselRows {
			out = append(out, catalog.Morsel{Fragment: t.keys[fi], Start: start, End: min(start+morselRows, n)})
		}
		live += n - int64(f.GetDeletionFile().GetNumDeletedRows())
	}
	return out, nil
}

// physicalRows is the fragment's physical row count, read from its first data file when the
// manifest does not record it.
func (t *Table) physicalRows(ctx context.Context, fi int) (int64, error) {
	f := t.m.Fragments()[fi]
	if n := f.GetPhysicalRows(); n > 0 || len(f.GetFiles()) == 0 {
		return int64(n), nil
	}
	r, err := t.reader(ctx, fi, 0)
	if err != nil {
		return 0, fmt.Errorf("table %q version %d fragment %d: row count: %w", t.name, t.Version(), f.GetId(), err)
	}
	return int64(r.NumRows()), nil
}

// dataFile is what a scan needs of a data file; file.Reader (2.0/2.1/2.2) and
// legacy.Reader (v1) both satisfy it.
type dataFile interface {
	NumRows() uint64
	ReadRange(ctx context.Context, fieldIDs []int32, start, end uint64, mem memory.Allocator) ([]arrow.Array, error)
	Take(ctx context.Context, fieldIDs []int32, rows []uint64, mem memory.Allocator) ([]arrow.Array, error)
}

// reader opens (or finds in the cache) the reader of data file dfi of fragment fi. Legacy v1
// files, recognised by their own footer (which wins over the DataFile's version), get a
// legacy.Reader typed by this snapshot's schema, so those are cached per table version.
func (t *Table) reader(ctx context.Context, fi, dfi int) (dataFile, error) {
	df := t.m.Fragments()[fi].GetFiles()[dfi]
	loc, err := t.ds.DataFileLocation(ctx, t.m, df) // under a base path when df has a base_id
	if err != nil {
		return nil, err
	}
	key := loc.Key()
	legacyKey := fmt.Sprintf("%s#legacy:%s@%d", key, t.name, t.Version())
	for _, k := range []string{key, legacyKey} {
		if r, ok := t.files.Get(k); ok {
			return r, nil
		}
	}
	// The bytes Open reads (footer, column metadata, page tables) size the cache entry.
	cs := lanceio.NewCountingStore(loc.Store)
	fr, err := t.openFile(ctx, cs, loc.Path, key)
	if err == nil {
		t.files.Add(key, fr, fileCost(cs.BytesRead()))
		return fr, nil
	}
	if !errors.Is(err, file.ErrLegacyFile) {
		return nil, err
	}
	cs.Reset()
	lr, err := legacy.Open(ctx, cs, loc.Path, t.schema, df.GetFields(), t.legacyDictionaries())
	if err != nil {
		return nil, err
	}
	t.files.Add(legacyKey, lr, fileCost(cs.BytesRead()))
	return lr, nil
}

// metaShare is the share of the data-file cache's budget one Reader's parsed page metadata
// (mini-block chunk tables) may take.
const metaShare = 4

// openFile opens a 2.0+ data file whose Reader keeps its parsed page metadata, counted in
// the cost of its entry key in the data-file cache: scans of the file share the tables
// instead of every cursor reading and parsing them again.
func (t *Table) openFile(ctx context.Context, store lanceio.ObjectStore, path, key string) (*file.Reader, error) {
	var fr *file.Reader
	opts := file.OpenOptions{MetaBytes: t.files.Budget() / metaShare, OnMeta: func(n int64) {
		t.files.Grow(key, func(v dataFile) bool { return v == dataFile(fr) }, n)
	}, Blocks: t.blocks, FileID: key}
	fr, err := file.OpenWith(ctx, store, path, opts)
	return fr, err
}

// legacyDictionaries returns the v1 dictionary value locations of the schema's fields.
func (t *Table) legacyDictionaries() map[int32]legacy.Dictionary {
	var out map[int32]legacy.Dictionary
	for _, f := range t.m.Fields() {
		if d := f.GetDictionary(); d != nil {
			if out == nil {
				out = map[int32]legacy.Dictionary{}
			}
			out[f.GetId()] = legacy.Dictionary{Offset: d.GetOffset(), Length: d.GetLength()}
		}
	}
	return out
}

// deletionVector returns the fragment's deleted offsets (nil if none), loading them once.
func (t *Table) deletionVector(ctx context.Context, fi int) (*table.DeletionVector, error) {
	f := t.m.Fragments()[fi]
	if f.GetDeletionFile() == nil {
		return nil, nil
	}
	t.mu.Lock()
	dv, ok := t.deletions[fi]
	t.mu.Unlock()
	if ok {
		return dv, nil
	}
	dv, err := t.ds.ReadFragmentDeletions(ctx, t.m, f)
	if err != nil {
		return nil, fmt.Errorf("table %q version %d fragment %d: %w", t.name, t.Version(), f.GetId(), err)
	}
	t.mu.Lock()
	t.deletions[fi] = dv
	t.mu.Unlock()
	return dv, nil
}

// Scan implements catalog.Table.
func (t *Table) Scan(ctx context.Context, req catalog.ScanRequest, m catalog.Morsel, mem memory.Allocator) (catalog.RecordReader, error) {
	fi, ok := t.frags[m.Fragment]
	if !ok {
		return nil, fmt.Errorf("scan table %q version %d: no fragment %d", t.name, t.Version(), m.Fragment)
	}
	n, err := t.physicalRows(ctx, fi)
	if err != nil {
		return nil, classify(err)
	}
	if m.Start < 0 || m.Start > m.End || m.End > n {
		return nil, fmt.Errorf("scan table %q version %d fragment %d: rows [%d,%d) out of range (%d rows)",
			t.name, t.Version(), m.Fragment, m.Start, m.End, n)
	}
	plan, err := t.planColumns(ctx, fi, req.Columns)
	if err != nil {
		return nil, classify(err)
	}
	if err := t.planRowColumns(ctx, fi, req, plan); err != nil {
		return nil, classify(err)
	}
	dv, err := t.deletionVector(ctx, fi)
	if err != nil {
		return nil, classify(err)
	}
	rd := &scanReader{t: t, plan: plan, dv: dv, next: uint64(m.Start), end: uint64(m.End), mem: mem}
	if err := t.pickRows(ctx, req, m, rd); err != nil {
		return nil, classify(err)
	}
	return rd, nil
}

var _ catalog.Table = (*Table)(nil)
