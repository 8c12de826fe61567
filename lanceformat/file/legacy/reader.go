// Package legacy reads legacy (v1, pre-2.0) Lance data files, footer versions 0.1 and 0.2,
// so that the v2 reader in package file carries no version branches.
//
// Layout (all integers little-endian):
//
//	data pages | page table | [Manifest] | Metadata | footer (16 bytes)
//	footer:     u64 metadata position | u16 major | u16 minor | "LANC"
//	Metadata:   u32 length + protobuf lance.file.Metadata (1 manifest_position,
//	            2 batch_offsets, 3 page_table_position, 5 statistics)
//	page table: for each field id min..max of the DataFile, for each batch:
//	            (i64 position, i64 length)
//
// Types come from the dataset schema (as in Lance's own v1 reader), not from the optional
// manifest inside the file; OpenSelfDescribed reads files whose schema is only in that
// manifest (Lance's v1 index files). Encodings: plain (fixed-width values, bit-packed
// booleans, fixed-size lists and binaries, no validity), var-binary (i64 absolute value
// positions; in a nullable field an empty value reads as null), lists (plain offsets into
// the child's page of the same batch) and structs (no page of their own).
//
// Dictionary fields store plain keys in their pages and their values once per file, as a
// var-binary page whose location the dataset schema records (Field.dictionary).
//
// Not supported yet: dictionaries with non-binary values, and statistics pages (not needed
// to read rows).
package legacy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/encoding"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/schema"
)

// ErrCorruptFile classifies v1 files whose bytes contradict the format.
var ErrCorruptFile = errors.New("corrupt legacy lance file")

// ErrNotSupported classifies valid v1 files this package cannot read; messages contain
// "not supported yet: <what>".
var ErrNotSupported = encoding.ErrNotSupported

// FooterSize is the size of the v1 footer.
const FooterSize = 16

// tailRead is how many bytes Open reads from the end of the file in its first request.
const tailRead = 64 << 10

// page is one (position, length) page-table cell; length counts values (rows, or offsets
// minus one for lists and binaries).
type page struct {
	pos, length uint64
}

// Dictionary locates the values of a dictionary field in a v1 file: the var-binary page at
// Offset holding Length values (the dataset schema's Field.dictionary).
type Dictionary struct {
	Offset, Length int64
}

// Reader reads one v1 data file. It is immutable after Open and safe for concurrent use.
type Reader struct {
	store   lanceio.ObjectStore
	path    string
	size    uint64
	schema  *schema.Schema
	meta    Metadata
	minID   int32
	maxID   int32
	pages   []page // (id-minID)*numBatches + batch
	numRows uint64
	dicts   map[int32]Dictionary
}

// Open reads the footer, metadata and page table of the v1 file at path. sc is the dataset
// schema; fieldIDs are the DataFile's field ids (they bound the page table); dicts holds the
// dictionary locations of dictionary fields by field id (nil if there are none).
func Open(ctx context.Context, store lanceio.ObjectStore, path string, sc *schema.Schema,
	fieldIDs []int32, dicts map[int32]Dictionary) (*Reader, error) {
	size, err := store.Size(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open legacy lance file %s: %w", path, err)
	}
	r := &Reader{store: store, path: path, size: uint64(size), schema: sc, dicts: dicts}
	if err := r.open(ctx, fieldIDs); err != nil {
		return nil, fmt.Errorf("open legacy lance file %s: %w", path, err)
	}
	return r, nil
}

func (r *Reader) open(ctx context.Context, fieldIDs []int32) error {
	metaPos, err := r.readMetadata(ctx)
	if err != nil {
		return err
	}
	return r.finishOpen(ctx, fieldIDs, metaPos)
}

// readMetadata reads the footer and the metadata block and returns the metadata position.
func (r *Reader) readMetadata(ctx context.Context) (uint64, error) {
	n := min(r.size, tailRead)
	tail, err := r.readAt(ctx, r.size-n, n)
	if err != nil {
		return 0, err
	}
	metaPos, err := ParseFooter(tail, r.size)
	if err != nil {
		return 0, err
	}
	if metaPos < r.size-n {
		if tail, err = r.readAt(ctx, metaPos, r.size-metaPos); err != nil {
			return 0, err
		}
	} else {
		tail = tail[metaPos-(r.size-n):]
	}
	if r.meta, err = ParseMetadata(tail[:len(tail)-FooterSize]); err != nil {
		return 0, err
	}
	r.numRows = r.meta.NumRows()
	return metaPos, nil
}

// finishOpen bounds the page table by fieldIDs and loads it and the file's dictionaries.
func (r *Reader) finishOpen(ctx context.Context, fieldIDs []int32, metaPos uint64) error {
	ids := slices.DeleteFunc(slices.Clone(fieldIDs), func(id int32) bool { return id < 0 })
	if len(ids) == 0 {
		return fmt.Errorf("%w: data file lists no field ids", ErrCorruptFile)
	}
	r.minID, r.maxID = slices.Min(ids), slices.Max(ids)
	if err := r.loadFileDictionaries(ctx, metaPos); err != nil {
		return err
	}
	return r.loadPageTable(ctx)
}

// loadFileDictionaries reads the dictionary locations from the manifest embedded in the
// file (at Metadata.manifest_position, before the metadata block), if any. They override
// the dataset schema's: each file records its own dictionary offsets.
func (r *Reader) loadFileDictionaries(ctx context.Context, metaPos uint64) error {
	mp := r.meta.ManifestPosition
	if mp == 0 || !r.hasDictionaryField() {
		return nil
	}
	b, err := r.readManifestBlock(ctx, metaPos)
	if err != nil {
		return err
	}
	dicts, err := ParseManifestDictionaries(b)
	if err != nil {
		return err
	}
	merged := make(map[int32]Dictionary, len(r.dicts)+len(dicts))
	maps.Copy(merged, r.dicts)
	maps.Copy(merged, dicts)
	r.dicts = merged
	return nil
}

// readManifestBlock reads the bytes of the manifest embedded in the file: from
// Metadata.manifest_position (non-zero) to the metadata block at metaPos.
func (r *Reader) readManifestBlock(ctx context.Context, metaPos uint64) ([]byte, error) {
	mp := r.meta.ManifestPosition
	if mp >= metaPos {
		return nil, fmt.Errorf("%w: manifest position %d not before the metadata (%d)", ErrCorruptFile, mp, metaPos)
	}
	b, err := r.readAt(ctx, mp, metaPos-mp)
	if err != nil {
		return nil, fmt.Errorf("file manifest: %w", err)
	}
	return b, nil
}

func (r *Reader) hasDictionaryField() bool {
	found := false
	r.schema.Walk(func(f *schema.Field) bool {
		found = found || f.Type.ID() == arrow.DICTIONARY
		return !found
	})
	return found
}

func (r *Reader) loadPageTable(ctx context.Context) error {
	nb := uint64(r.meta.NumBatches())
	cells := uint64(r.maxID-r.minID+1) * nb
	if cells == 0 {
		return nil
	}
	if cells > r.size/16 {
		return fmt.Errorf("%w: page table of %d cells does not fit in %d bytes", ErrCorruptFile, cells, r.size)
	}
	b, err := r.readAt(ctx, r.meta.PageTablePosition, cells*16)
	if err != nil {
		return fmt.Errorf("page table: %w", err)
	}
	r.pages = make([]page, cells)
	for i := range r.pages {
		pos := binary.LittleEndian.Uint64(b[i*16:])
		l := binary.LittleEndian.Uint64(b[i*16+8:])
		if int64(pos) < 0 || int64(l) < 0 || pos > r.size {
			return fmt.Errorf("%w: page table cell %d (%d, %d) past the end (%d)", ErrCorruptFile, i, pos, l, r.size)
		}
		r.pages[i] = page{pos: pos, length: l}
	}
	return nil
}

// ParseFooter decodes the 16-byte v1 footer at the end of b (the tail of a file of
// fileSize bytes) and returns the metadata position.
func ParseFooter(b []byte, fileSize uint64) (uint64, error) {
	if len(b) < FooterSize || fileSize < FooterSize {
		return 0, fmt.Errorf("%w: footer needs %d bytes, have %d", ErrCorruptFile, FooterSize, len(b))
	}
	b = b[len(b)-FooterSize:]
	if string(b[12:16]) != "LANC" {
		return 0, fmt.Errorf("%w: bad magic %q", ErrCorruptFile, b[12:16])
	}
	major, minor := binary.LittleEndian.Uint16(b[8:]), binary.LittleEndian.Uint16(b[10:])
	if major != 0 || minor > 2 {
		return 0, fmt.Errorf("%w: version %d.%d is not a legacy v1 file", ErrCorruptFile, major, minor)
	}
	pos := binary.LittleEndian.Uint64(b)
	if pos > fileSize-FooterSize {
		return 0, fmt.Errorf("%w: metadata position %d past the footer (%d)", ErrCorruptFile, pos, fileSize-FooterSize)
	}
	return pos, nil
}

func (r *Reader) readAt(ctx context.Context, off, n uint64) ([]byte, error) {
	if off > r.size || n > r.size-off {
		return nil, fmt.Errorf("%w: read [%d, +%d) past the end (%d)", ErrCorruptFile, off, n, r.size)
	}
	if n == 0 {
		return nil, nil
	}
	b, err := r.store.ReadRange(ctx, r.path, int64(off), int64(n))
	if err != nil {
		return nil, fmt.Errorf("read [%d, +%d): %w", off, n, err)
	}
	if uint64(len(b)) != n {
		return nil, fmt.Errorf("read [%d, +%d): got %d bytes", off, n, len(b))
	}
	return b, nil
}

// page returns the page of field id in batch.
func (r *Reader) page(id int32, batch int) (page, error) {
	nb := r.meta.NumBatches()
	if id < r.minID || id > r.maxID || batch < 0 || batch >= nb {
		return page{}, fmt.Errorf("%w: no page for field %d batch %d", ErrCorruptFile, id, batch)
	}
	return r.pages[int(id-r.minID)*nb+batch], nil
}

// NumRows is the number of rows in the file.
func (r *Reader) NumRows() uint64 { return r.numRows }

// Path is the file's path in its store.
func (r *Reader) Path() string { return r.path }

// Schema is the dataset schema the reader was opened with.
func (r *Reader) Schema() *schema.Schema { return r.schema }
