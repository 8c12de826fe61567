// Package memcat is an in-memory catalog.Catalog over Arrow record batches. It exists for
// planner and executor tests: tables are added with AddTable and never change, every table
// has version 1, and each added batch is one fragment whose rows are split into morsels of
// at most MorselRows rows. Scans produce the hidden row columns (catalog.ScanRequest RowID
// and RowAddr): the row address of row r of batch i is i << 32 | r, and the row id equals it.
package memcat

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
)

// DefaultMorselRows is the morsel size used when none is set.
const DefaultMorselRows = 64 * 1024

// Catalog is an in-memory catalog. It is safe for concurrent use.
type Catalog struct {
	mu         sync.RWMutex
	tables     map[string]*Table
	morselRows int64
}

// Option configures a Catalog.
type Option func(*Catalog)

// WithMorselRows sets the maximum number of rows per morsel (n > 0).
func WithMorselRows(n int64) Option {
	return func(c *Catalog) {
		if n > 0 {
			c.morselRows = n
		}
	}
}

// New returns an empty catalog.
func New(opts ...Option) *Catalog {
	c := &Catalog{tables: map[string]*Table{}, morselRows: DefaultMorselRows}
	for _, o := range opts {
		o(c)
	}
	return c
}

// AddTable adds (or replaces) a table made of the given batches, which must all have
// schema. The catalog retains the batches; Release releases them.
func (c *Catalog) AddTable(name string, schema *arrow.Schema, batches ...arrow.RecordBatch) error {
	for i, b := range batches {
		if !b.Schema().Equal(schema) {
			return fmt.Errorf("memcat: add table %s: batch %d schema %s differs from table schema %s", name, i, b.Schema(), schema)
		}
	}
	t := &Table{name: name, schema: schema, morselRows: c.morselRows}
	for _, b := range batches {
		b.Retain()
		t.batches = append(t.batches, b)
		t.rows += b.NumRows()
	}
	c.mu.Lock()
	old := c.tables[name]
	c.tables[name] = t
	c.mu.Unlock()
	if old != nil {
		old.release()
	}
	return nil
}

// Release releases every batch the catalog holds. The catalog is empty afterwards.
func (c *Catalog) Release() {
	c.mu.Lock()
	tables := c.tables
	c.tables = map[string]*Table{}
	c.mu.Unlock()
	for _, t := range tables {
		t.release()
	}
}

// ListTables implements catalog.Catalog.
func (c *Catalog) ListTables(context.Context) ([]string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.tables))
	for n := range c.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// LoadTable implements catalog.Catalog. Every table has exactly one version, 1.
func (c *Catalog) LoadTable(_ context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	c.mu.RLock()
	t, ok := c.tables[name]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("memcat: load table %s: %w", name, catalog.ErrNoSuchTable)
	}
	if !at.IsLatest() && at.Version != 1 {
		return nil, fmt.Errorf("memcat: load table %s at %s: %w", name, at, catalog.ErrNoSuchVersion)
	}
	return t, nil
}

// Table is one in-memory table. Its batches stay valid until the catalog is released.
type Table struct {
	name       string
	schema     *arrow.Schema
	batches    []arrow.RecordBatch
	rows       int64
	morselRows int64
}

var _ catalog.Table = (*Table)(nil)

func (t *Table) release() {
	for _, b := range t.batches {
		b.Release()
	}
	t.batches = nil
}

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Version implements catalog.Table; it is always 1.
func (t *Table) Version() uint64 { return 1 }

// Schema implements catalog.Table.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// Stats implements catalog.Table.
func (t *Table) Stats() catalog.Stats {
	return catalog.Stats{Rows: t.rows, Fragments: len(t.batches)}
}

// Morsels implements catalog.Table: each batch is a fragment, split into ranges of at most
// the catalog's morsel size. Empty batches yield no morsel.
func (t *Table) Morsels(ctx context.Context, req catalog.ScanRequest) ([]catalog.Morsel, error) {
	if err := t.checkColumns(req.Columns); err != nil {
		return nil, err
	}
	var ms []catalog.Morsel
	for i, b := range t.batches {
		n := b.NumRows()
		for start := int64(0); start < n; start += t.morselRows {
			ms = append(ms, catalog.Morsel{Fragment: uint64(i), Start: start, End: min(n, start+t.morselRows)})
		}
	}
	return ms, ctx.Err()
}

func (t *Table) checkColumns(cols []int) error {
	for _, c := range cols {
		if c < 0 || c >= t.schema.NumFields() {
			return fmt.Errorf("memcat: scan %s: column index %d out of range [0, %d)", t.name, c, t.schema.NumFields())
		}
	}
	return nil
}

// Scan implements catalog.Table. The reader yields one batch: the morsel's rows of the
// requested columns (sharing the table's buffers).
func (t *Table) Scan(ctx context.Context, req catalog.ScanRequest, m catalog.Morsel, mem memory.Allocator) (catalog.RecordReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.checkColumns(req.Columns); err != nil {
		return nil, err
	}
	if m.Fragment >= uint64(len(t.batches)) {
		return nil, fmt.Errorf("memcat: scan %s: no fragment %d", t.name, m.Fragment)
	}
	b := t.batches[m.Fragment]
	if m.Start < 0 || m.End > b.NumRows() || m.Start > m.End {
		return nil, fmt.Errorf("memcat: scan %s: morsel rows [%d, %d) out of range [0, %d)", t.name, m.Start, m.End, b.NumRows())
	}
	end := m.End
	if req.Limit >= 0 && m.Start+req.Limit < end {
		end = m.Start + req.Limit
	}
	fields := make([]arrow.Field, len(req.Columns))
	cols := make([]arrow.Array, len(req.Columns))
	var bytes int64
	for i, c := range req.Columns {
		fields[i] = t.schema.Field(c)
		cols[i] = array.NewSlice(b.Column(c), m.Start, end)
		if n := b.NumRows(); n > 0 {
			bytes += columnBytes(b.Column(c).Data()) * (end - m.Start) / n
		}
	}
	rowFields, rowCols := rowColumns(req, m.Fragment, m.Start, end, mem)
	fields, cols = append(fields, rowFields...), append(cols, rowCols...)
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, cols, end-m.Start)
	for _, c := range cols {
		c.Release()
	}
	return &reader{schema: schema, rec: rec, bytes: bytes}, nil
}

// columnBytes is the size of the buffers of d and its children.
func columnBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		if c != nil {
			n += columnBytes(c)
		}
	}
	return n
}

// reader yields one batch. It implements catalog.ScanStats: the bytes "read" are the
// batch's share (by rows) of its columns' buffers, counted once the batch is returned.
type reader struct {
	schema   *arrow.Schema
	rec      arrow.RecordBatch
	bytes    int64
	returned bool
}

// BytesRead implements catalog.ScanStats.
func (r *reader) BytesRead() int64 {
	if r.returned {
		return r.bytes
	}
	return 0
}

func (r *reader) Schema() *arrow.Schema { return r.schema }

func (r *reader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec := r.rec
	r.rec = nil
	r.returned = r.returned || rec != nil
	return rec, nil
}

func (r *reader) Close() error {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	return nil
}
