// Package file reads and writes Lance v2 data files (format versions 2.0, 2.1 and 2.2).
// The reader decodes the footer, the global buffer and column metadata tables, the embedded
// schema, and the pages of the columns a caller asks for into Arrow arrays; the writer
// (writer.go) encodes Arrow batches into pages the way Lance's own writer does.
//
//	Open:    tail (one request) → footer → GBO → FileDescriptor (schema, rows) → CMO → ColumnMetadata
//	ReadRange / Take:
//	         field ids → columns (§4.4) → pages holding the rows → page buffers (ranged reads)
//	         → decode (2.0: ArrayEncoding tree; 2.1+: PageLayout + rep/def levels)
//	         → encoding.Builder → arrow.Array
//
// A ReadRange decodes 2.1+ mini-block pages without levels (non-nullable, non-list
// columns) straight into its output builders, whose fixed-width values and string bytes
// live in buffers from the caller's allocator from the start (no page-sized scratch, no
// copy at the end).
//
// Only the pages that hold requested rows are read; for 2.1+ mini-block pages without
// lists, only the chunks that hold them. A Take of a 2.1+ file plans its reads before
// decoding (prefetch.go): chunk tables first, then the chunks and rows they locate, each
// round merged across small gaps and fetched with a bounded number of reads in flight.
// Page bytes are read into buffers from a pool (pagepool.go; through the store's
// lanceio.RangeIntoReader when it has one) that return to it when the call ends: decoding
// copies out of them, so no returned array points into page bytes. A Reader opened with a
// BlockCache (OpenWith; blockcache.go) reads page bytes into fresh memory instead and keeps
// them there for later calls, shared and read-only: decoders never write into page bytes.
// Errors wrap ErrCorruptFile (bad bytes) or
// ErrNotSupported ("not supported yet: ..."): legacy v1 files, blob columns and layouts,
// and the encodings named in the decoders' errors. Packed structs (packed.go) own one
// column, in 2.0 and 2.1+ alike, and read as leaves. Maps (2.2+) are lists of their
// entries struct: like lists they own no column, and they read as Arrow map arrays.
package file

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// tailRead is how many bytes Open reads from the end of the file in its first request.
const tailRead = 64 << 10

// Reader reads one Lance data file. It is immutable after Open and safe for concurrent use.
type Reader struct {
	store    lanceio.ObjectStore
	path     string
	size     uint64
	version  Version
	numRows  uint64
	schema   *schema.Schema
	columns  []*column
	colOfFld map[int32]int // field id → column index
	meta     *metaCache    // parsed page metadata shared by all reads (OpenWith); nil keeps none
	blocks   *BlockCache   // page bytes kept between calls (OpenWith); nil keeps none
	fileID   uint64        // the file's number in blocks' keys
}

// Open reads the file's metadata: the footer, the schema and all column metadata.
func Open(ctx context.Context, store lanceio.ObjectStore, path string) (*Reader, error) {
	size, err := store.Size(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open lance file %s: %w", path, err)
	}
	r := &Reader{store: store, path: path, size: uint64(size)}
	if err := r.readMetadata(ctx); err != nil {
		return nil, fmt.Errorf("open lance file %s: %w", path, err)
	}
	return r, nil
}

func (r *Reader) readMetadata(ctx context.Context) error {
	if r.size < footerSize {
		return fmt.Errorf("%w: %d bytes is too short for a footer", ErrCorruptFile, r.size)
	}
	tailStart := uint64(0)
	if r.size > tailRead {
		tailStart = r.size - tailRead
	}
	tail, err := r.store.ReadRange(ctx, r.path, int64(tailStart), int64(r.size-tailStart))
	if err != nil {
		return fmt.Errorf("read tail: %w", err)
	}
	countRead(ctx, len(tail))
	ft, err := ParseFooter(tail, r.size)
	if err != nil {
		return err
	}
	if r.version, err = ft.Version(); err != nil {
		return err
	}
	var gboBytes []byte
	if ft.GlobalBufOffsets >= tailStart {
		gboBytes = tail[ft.GlobalBufOffsets-tailStart:]
	} else if gboBytes, err = r.readAt(ctx, ft.GlobalBufOffsets, r.size-ft.GlobalBufOffsets); err != nil {
		return err
	}
	gbo, err := ParseTable(gboBytes, ft.NumGlobalBuffers, r.size, "global buffer")
	if err != nil {
		return err
	}
	// Everything from the schema (or the column metadata, if earlier) to EOF, in one piece.
	metaStart := min(gbo[0].Pos, ft.ColumnMetaStart)
	meta := tail
	if metaStart < tailStart {
		if meta, err = r.readAt(ctx, metaStart, r.size-metaStart); err != nil {
			return err
		}
	} else {
		meta = tail[metaStart-tailStart:]
	}
	slice := func(e Extent) []byte { return meta[e.Pos-metaStart : e.End()-metaStart] }
	if gbo[0].Pos < metaStart {
		return fmt.Errorf("%w: schema buffer before the metadata region", ErrCorruptFile)
	}
	if err := r.parseDescriptor(slice(gbo[0])); err != nil {
		return err
	}
	if err := r.parseColumns(ft, meta, metaStart); err != nil {
		return err
	}
	return r.mapColumns()
}

// parseColumns decodes the CMO table and every ColumnMetadata from meta, the bytes of the
// file from metaStart to EOF.
func (r *Reader) parseColumns(ft Footer, meta []byte, metaStart uint64) error {
	cmo, err := ParseTable(meta[ft.ColumnMetaOffsets-metaStart:], ft.NumColumns, r.size, "column metadata")
	if err != nil {
		return err
	}
	r.columns = make([]*column, len(cmo))
	for i, e := range cmo {
		if e.Pos < metaStart {
			return fmt.Errorf("%w: column %d metadata at %d precedes the metadata region", ErrCorruptFile, i, e.Pos)
		}
		if r.columns[i], err = parseColumn(meta[e.Pos-metaStart:e.End()-metaStart], r.version, r.size); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	return nil
}

func (r *Reader) readAt(ctx context.Context, off, n uint64) ([]byte, error) {
	if off > r.size || n > r.size-off {
		return nil, fmt.Errorf("%w: read [%d, +%d) past the end (%d)", ErrCorruptFile, off, n, r.size)
	}
	b, err := r.store.ReadRange(ctx, r.path, int64(off), int64(n))
	if err != nil {
		return nil, fmt.Errorf("read [%d, +%d): %w", off, n, err)
	}
	countRead(ctx, len(b))
	if uint64(len(b)) != n {
		return nil, fmt.Errorf("read [%d, +%d): got %d bytes", off, n, len(b))
	}
	return b, nil
}

func (r *Reader) parseDescriptor(b []byte) error {
	var fd lancepb.FileDescriptor
	if err := proto.Unmarshal(b, &fd); err != nil {
		return fmt.Errorf("%w: file descriptor: %w", ErrCorruptFile, err)
	}
	s, err := schema.FromSchemaProto(fd.GetSchema())
	if errors.Is(err, schema.ErrNotSupported) {
		return fmt.Errorf("%w: file schema: %w", ErrNotSupported, err)
	} else if err != nil {
		return fmt.Errorf("%w: file schema: %w", ErrCorruptFile, err)
	}
	r.schema, r.numRows = s, fd.GetLength()
	return nil
}

// mapColumns numbers the columns per §4.4: 2.0 gives every field a column in pre-order;
// 2.1+ gives only leaves one.
func (r *Reader) mapColumns() error {
	r.colOfFld = make(map[int32]int)
	next := 0
	for _, top := range r.schema.Fields {
		for _, f := range columnFields(top, r.version) { // packed structs: one column (packed.go)
			r.colOfFld[f.ID] = next
			next++
		}
	}
	if next != len(r.columns) {
		return fmt.Errorf("%w: schema needs %d columns, file has %d", ErrCorruptFile, next, len(r.columns))
	}
	for i, c := range r.columns {
		if err := c.computeStarts(); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	// Every column of a top-level field counts top-level rows (2.0 list items and the
	// children of list items count items instead).
	for _, f := range r.schema.Fields {
		cols := []*schema.Field{f}
		if r.version != V2_0 {
			cols = columnFields(f, r.version)
		}
		for _, cf := range cols {
			ci := r.colOfFld[cf.ID]
			if got := r.columns[ci].starts[len(r.columns[ci].pages)]; got != r.numRows {
				return fmt.Errorf("%w: column %d (field %q) has %d rows, file has %d", ErrCorruptFile, ci, cf.Name, got, r.numRows)
			}
		}
	}
	return nil
}

// Version is the file's format version.
func (r *Reader) Version() Version { return r.version }

// NumRows is the number of rows in the file.
func (r *Reader) NumRows() uint64 { return r.numRows }

// Schema is the schema embedded in the file, with dataset-level field ids.
func (r *Reader) Schema() *schema.Schema { return r.schema }

// Path is the path the reader was opened with.
func (r *Reader) Path() string { return r.path }

// errNoField is returned for field ids the file does not hold.
var errNoField = errors.New("field not in file")

func (r *Reader) topField(id int32) (*schema.Field, error) {
	for _, f := range r.schema.Fields {
		if f.ID == id {
			return f, nil
		}
	}
	return nil, fmt.Errorf("read %s: field id %d: %w (only top-level fields can be read)", r.path, id, errNoField)
}

// pageFor returns the index of the page of c holding row, by binary search.
func (c *column) pageFor(row uint64) int {
	return sort.Search(len(c.pages), func(i int) bool { return c.starts[i+1] > row })
}
