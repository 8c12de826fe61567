package file

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// Default page flush thresholds: the in-memory size of a top-level field's pending rows at
// which its pages are encoded. The 2.1 writer flushes about 8 MiB per column; 2.0 pages are
// capped at 32 MiB.
const (
	defaultPageBytes21 = 8 << 20
	defaultPageBytes20 = 16 << 20
)

// ErrWriterClosed is returned by Write and Close after Close.
var ErrWriterClosed = errors.New("lance file writer is closed")

// FileInfo describes a written file: what a manifest DataFile needs (§3.4, §4.4).
//
//nolint:revive // the name is part of the agreed writer API (file.FileInfo)
type FileInfo struct {
	// Path is the path the file was written to.
	Path string
	// NumRows is the number of rows.
	NumRows uint64
	// Fields are the field ids that own a column, in column order; ColumnIndices are the
	// matching column indices (0, 1, 2, ...).
	Fields        []int32
	ColumnIndices []int32
	// Major and Minor are the DataFile version: (2,0), (2,1) or (2,2). A 2.0 file's footer
	// says (0,3).
	Major, Minor uint32
	// Size is the file size in bytes.
	Size uint64
}

// WriterOption configures a Writer.
type WriterOption func(*writerConfig)

type writerConfig struct {
	mem       memory.Allocator
	pageBytes int64
}

// WithAllocator sets the allocator used to concatenate buffered batches (default
// memory.DefaultAllocator).
func WithAllocator(mem memory.Allocator) WriterOption {
	return func(c *writerConfig) { c.mem = mem }
}

// WithPageBytes sets how many bytes of buffered rows of one top-level field trigger
// encoding its pages (default 8 MiB for 2.1+, 16 MiB for 2.0). Small values give many
// small pages, which tests use to exercise multi-page files.
func WithPageBytes(n int64) WriterOption {
	return func(c *writerConfig) { c.pageBytes = max(n, 1) }
}

// Writer writes one Lance data file (format 2.0, 2.1 or 2.2) from Arrow record batches.
//
// lanceio has no streaming writes yet, so the writer keeps the encoded pages in memory and
// writes the whole object with a single Put at Close. Rows of each top-level field are
// buffered until about the page size, then encoded into pages. A Writer is not safe for
// concurrent use. Call Close, or Abort to give up; either releases the buffered batches.
//
// Encodings follow what pylance writes (lance-format.md §5.5.2, §5.6.6):
//   - 2.0: Nullable around Flat, Binary (u64 offsets) for strings and binary, the 2.0
//     dictionary for low-cardinality Utf8 pages, Nullable/FixedSizeList for vectors, List
//     offsets pages and SimpleStruct headers. Null structs are rejected, as Lance does.
//   - 2.1/2.2: mini-block pages with RLE (long runs), FastLanes bit-packing (integers),
//     dictionary or FSST (strings) or flat values, full-zip pages for values of 256 bytes or more (FSST for
//     long strings), AllNull/Constant pages; rep/def levels bit-packed; 2.2 uses the
//     large-chunk grammar; Arrow dictionary columns as dictionary pages holding the Arrow
//     dictionary; maps (2.2 only) as their key and value leaves; General (zstd/lz4)
//     compression where lance-encoding:compression asks for it (level from
//     lance-encoding:compression-level), and per-value zstd for strings longer than 32 KiB;
//     lance-encoding:compression=none turns compression off.
//   - 2.0 with lance-encoding:compression=zstd: the bytes of string and binary pages are one
//     zstd frame, as Lance writes them.
//
// Not supported yet: union and view types, maps with sorted keys, Arrow dictionaries in
// 2.0 files, fixed-size lists of booleans or of nested types, blob columns, packed structs,
// byte-stream-split value compression, lz4 in 2.0 files, 2.2 constant pages for repeated
// non-null values, and the other lance-encoding:* field metadata settings (kept in the
// schema, otherwise ignored).
type Writer struct {
	store   lanceio.ObjectStore
	path    string
	sc      *schema.Schema
	version Version
	cfg     writerConfig
	fields  []*fieldState
	out     *fileBuilder
	rows    uint64
	closed  bool
}

// fieldState is the buffered rows and column range of one top-level field.
type fieldState struct {
	f        *schema.Field
	firstCol int
	numCols  int
	pending  []arrow.Array
	bytes    int64
	flushed  uint64                 // rows already encoded
	opts     []encoding.LeafOptions // encoding settings of each column
	hasDict  bool                   // an Arrow dictionary lies in the field (see flushEach)
}

// NewWriter prepares a file at path with schema sc (its field ids are the dataset's and
// are written as they are). Nothing is written before Close.
func NewWriter(ctx context.Context, store lanceio.ObjectStore, path string, sc *schema.Schema,
	version Version, opts ...WriterOption) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if version != V2_0 && version != V2_1 && version != V2_2 {
		return nil, fmt.Errorf("new lance file writer %s: %w", path, encoding.NotSupported("writing file version %d", version))
	}
	if sc == nil || len(sc.Fields) == 0 {
		return nil, fmt.Errorf("new lance file writer %s: schema has no fields", path)
	}
	for _, f := range sc.Fields {
		if err := encoding.CheckWritable(f.Type); err != nil {
			return nil, fmt.Errorf("new lance file writer %s: field %q: %w", path, f.Name, err)
		}
		if err := checkVersionTypes(f, version); err != nil {
			return nil, fmt.Errorf("new lance file writer %s: %w", path, err)
		}
		// A packed struct's children share one column; writing them as separate columns
		// under a schema that says "packed" would make every reader misread the file.
		for _, g := range f.PreOrder() {
			if isPacked(g, version) {
				return nil, fmt.Errorf("new lance file writer %s: %w", path, encoding.NotSupported("writing packed struct column %q", g.Name))
			}
		}
	}
	w := &Writer{store: store, path: path, sc: sc, version: version}
	w.cfg.mem = memory.DefaultAllocator
	w.cfg.pageBytes = defaultPageBytes21
	if version == V2_0 {
		w.cfg.pageBytes = defaultPageBytes20
	}
	for _, o := range opts {
		o(&w.cfg)
	}
	col := 0
	for _, f := range sc.Fields {
		n := len(f.Leaves())
		if version == V2_0 {
			n = len(f.PreOrder())
		}
		opts, err := leafOptions(f, version)
		if err != nil {
			return nil, fmt.Errorf("new lance file writer %s: %w", path, err)
		}
		w.fields = append(w.fields, &fieldState{f: f, firstCol: col, numCols: n, opts: opts, hasDict: hasDictionary(f)})
		col += n
	}
	w.out = newFileBuilder(version, col)
	return w, nil
}

// Write buffers a batch; its columns must match the schema's top-level fields in order and
// type. Pages of a field are encoded once enough of its rows are buffered.
func (w *Writer) Write(ctx context.Context, batch arrow.RecordBatch) error {
	if w.closed {
		return fmt.Errorf("write %s: %w", w.path, ErrWriterClosed)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if int(batch.NumCols()) != len(w.fields) {
		return fmt.Errorf("write %s: batch has %d columns, schema has %d", w.path, batch.NumCols(), len(w.fields))
	}
	for i, fs := range w.fields {
		if t := batch.Column(i).DataType(); !sameShape(t, fs.f.Type) {
			return fmt.Errorf("write %s: column %d (%q) is %s, schema says %s", w.path, i, fs.f.Name, t, fs.f.Type)
		}
	}
	if batch.NumRows() == 0 {
		return nil
	}
	for i, fs := range w.fields {
		c := batch.Column(i)
		c.Retain()
		fs.pending = append(fs.pending, c)
		fs.bytes += dataSize(c.Data())
		if fs.bytes >= w.cfg.pageBytes {
			if err := w.flushField(fs); err != nil {
				return fmt.Errorf("write %s: %w", w.path, err)
			}
		}
	}
	w.rows += uint64(batch.NumRows())
	return nil
}

// flushField encodes the buffered rows of one field into pages.
func (w *Writer) flushField(fs *fieldState) error {
	if len(fs.pending) == 0 {
		return nil
	}
	if fs.hasDict && len(fs.pending) > 1 {
		return w.flushEach(fs)
	}
	arr := fs.pending[0]
	if len(fs.pending) > 1 {
		var err error
		if arr, err = array.Concatenate(fs.pending, w.cfg.mem); err != nil {
			return fmt.Errorf("field %q: concatenate batches: %w", fs.f.Name, err)
		}
		for _, a := range fs.pending {
			a.Release()
		}
	}
	size := fs.bytes
	fs.pending, fs.bytes = nil, 0
	defer arr.Release()
	// One big batch still becomes pages of about the page size.
	n := int64(arr.Len())
	step := n
	if size > 2*w.cfg.pageBytes {
		step = max(1, n*w.cfg.pageBytes/size)
	}
	for lo := int64(0); lo < n; lo += step {
		part := array.NewSlice(arr, lo, min(n, lo+step))
		err := w.encodePages(fs, part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// encodePages encodes one page's worth of rows of a field and adds the pages to the file.
func (w *Writer) encodePages(fs *fieldState, arr arrow.Array) error {
	pages, err := w.encode(fs, arr)
	if err != nil {
		return fmt.Errorf("field %q (id %d): %w", fs.f.Name, fs.f.ID, err)
	}
	if len(pages) != fs.numCols {
		return fmt.Errorf("field %q (id %d): encoded %d columns, schema has %d", fs.f.Name, fs.f.ID, len(pages), fs.numCols)
	}
	for k, p := range pages {
		if err := w.out.addPage(fs.firstCol+k, p, fs.flushed); err != nil {
			return fmt.Errorf("field %q (id %d) column %d: %w", fs.f.Name, fs.f.ID, fs.firstCol+k, err)
		}
	}
	fs.flushed += uint64(arr.Len())
	return nil
}

func (w *Writer) encode(fs *fieldState, arr arrow.Array) ([]*encoding.EncodedPage, error) {
	if w.version == V2_0 {
		return encoding.EncodeColumns20With(arr, fs.opts)
	}
	leaves, err := encoding.ShredLeaves(arr)
	if err != nil {
		return nil, err
	}
	if len(leaves) != len(fs.opts) {
		return nil, fmt.Errorf("shredded %d leaves, schema has %d", len(leaves), len(fs.opts))
	}
	pages := make([]*encoding.EncodedPage, len(leaves))
	for i, l := range leaves {
		if pages[i], err = encoding.EncodeLeaf21With(l, w.version == V2_2, fs.opts[i]); err != nil {
			return nil, fmt.Errorf("leaf %d: %w", i, err)
		}
	}
	return pages, nil
}

// Abort releases the buffered batches without writing anything. Calling it after Close
// (or twice) does nothing.
func (w *Writer) Abort() {
	w.closed = true
	for _, fs := range w.fields {
		for _, a := range fs.pending {
			a.Release()
		}
		fs.pending = nil
	}
}

// Close encodes the remaining rows, writes the file with one Put and returns what a
// manifest needs to reference it. The writer cannot be used afterwards, whatever the
// outcome.
func (w *Writer) Close(ctx context.Context) (FileInfo, error) {
	if w.closed {
		return FileInfo{}, fmt.Errorf("close %s: %w", w.path, ErrWriterClosed)
	}
	w.closed = true
	var err error
	for _, fs := range w.fields {
		if err == nil {
			err = w.flushField(fs)
		}
		for _, a := range fs.pending {
			a.Release()
		}
		fs.pending = nil
	}
	if err != nil {
		return FileInfo{}, fmt.Errorf("close %s: %w", w.path, err)
	}
	if err := ctx.Err(); err != nil {
		return FileInfo{}, err
	}
	data, err := w.out.finish(w.sc, w.rows)
	if err != nil {
		return FileInfo{}, fmt.Errorf("close %s: %w", w.path, err)
	}
	if err := w.store.Put(ctx, w.path, data); err != nil {
		return FileInfo{}, fmt.Errorf("close %s: put: %w", w.path, err)
	}
	info := FileInfo{Path: w.path, NumRows: w.rows, Size: uint64(len(data)), Major: 2, Minor: uint32(w.version - V2_0)}
	for _, fs := range w.fields {
		cols := fs.f.Leaves()
		if w.version == V2_0 {
			cols = fs.f.PreOrder()
		}
		for _, c := range cols {
			info.ColumnIndices = append(info.ColumnIndices, int32(len(info.Fields)))
			info.Fields = append(info.Fields, c.ID)
		}
	}
	return info, nil
}

// dataSize estimates the memory of an array: the sizes of its buffers and its children's.
func dataSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataSize(c)
	}
	return n
}

// sameShape reports whether a batch column of type a can be stored as a field of type b:
// the types are equal apart from the names and nullability of list items and fixed-size
// list items (Lance does not keep those for fixed-size lists), and the nullability of
// struct members.
func sameShape(a, b arrow.DataType) bool {
	if arrow.TypeEqual(a, b) {
		return true
	}
	if a.ID() != b.ID() {
		return false
	}
	switch a := a.(type) {
	case *arrow.ListType:
		return sameShape(a.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.LargeListType:
		return sameShape(a.Elem(), b.(*arrow.LargeListType).Elem())
	case *arrow.FixedSizeListType:
		bt := b.(*arrow.FixedSizeListType)
		return a.Len() == bt.Len() && sameShape(a.Elem(), bt.Elem())
	case *arrow.StructType:
		bt := b.(*arrow.StructType)
		if a.NumFields() != bt.NumFields() {
			return false
		}
		for i, f := range a.Fields() {
			if f.Name != bt.Field(i).Name || !sameShape(f.Type, bt.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
