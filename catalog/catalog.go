// Package catalog defines what the planner and the executor need to know about tables:
// how to find them, which version of a table a query sees, and how to scan it.
//
// The package holds interfaces and plain value types only. The Lance implementation lives in
// catalog/lancecat; the planner and the executor depend on this package alone, so they never
// see the storage format.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Sentinel errors. Implementations wrap them with the table name and version so that
// errors.Is works and the message says what was asked for.
var (
	// ErrNoSuchTable means no table of that name exists in the catalog.
	ErrNoSuchTable = errors.New("no such table")
	// ErrNoSuchVersion means the table exists but not at the version, timestamp or tag asked for.
	ErrNoSuchVersion = errors.New("no such version")
	// ErrNotSupported means the table uses something (a type, an encoding, a feature flag) that
	// flightd cannot read yet. Messages say what: "not supported yet: <what>".
	ErrNotSupported = errors.New("not supported yet")
)

// Catalog finds tables. It is safe for concurrent use.
type Catalog interface {
	// ListTables returns the names of all tables, sorted.
	ListTables(ctx context.Context) ([]string, error)
	// LoadTable opens one table at one version. The returned Table is a snapshot: it never
	// changes, however many commits happen after it was loaded.
	LoadTable(ctx context.Context, name string, at VersionRef) (Table, error)
}

// VersionRef names the version of a table a query reads. The zero value means the latest
// version. At most one of Version, Tag and Timestamp is set.
type VersionRef struct {
	Version   uint64    // a version number, 1-based; 0 means unset
	Tag       string    // a tag name; "" means unset
	Timestamp time.Time // the newest version committed at or before this instant; zero means unset
}

// IsLatest reports whether r asks for the latest version.
func (r VersionRef) IsLatest() bool {
	return r.Version == 0 && r.Tag == "" && r.Timestamp.IsZero()
}

// String renders r the way EXPLAIN and error messages show it.
func (r VersionRef) String() string {
	switch {
	case r.Version != 0:
		return fmt.Sprintf("version %d", r.Version)
	case r.Tag != "":
		return fmt.Sprintf("tag %q", r.Tag)
	case !r.Timestamp.IsZero():
		return "timestamp " + r.Timestamp.UTC().Format(time.RFC3339Nano)
	default:
		return "latest"
	}
}

// Table is one table at one resolved version.
type Table interface {
	// Name is the table's name in the catalog.
	Name() string
	// Version is the concrete version this snapshot reads.
	Version() uint64
	// Schema is the table's Arrow schema at this version.
	Schema() *arrow.Schema
	// Stats returns what is known about the table's size without reading data.
	Stats() Stats
	// Morsels splits a scan into independent units of work, in table order.
	Morsels(ctx context.Context, req ScanRequest) ([]Morsel, error)
	// Scan reads one morsel. The caller must Close the returned reader.
	Scan(ctx context.Context, req ScanRequest, m Morsel, mem memory.Allocator) (RecordReader, error)
}

// Stats describe a table snapshot.
type Stats struct {
	Rows      int64 // live rows (deleted rows excluded); -1 when unknown
	Fragments int   // number of fragments
}

// ScanRequest says what a scan must produce.
type ScanRequest struct {
	// Columns are indices into Table.Schema() of the columns to read, in output order.
	// An empty slice reads no columns (only the row count matters, as for count(*)).
	Columns []int
	// Limit caps the number of rows a morsel needs to produce; negative means no limit.
	// It is a hint: readers may produce more, the plan still applies its own limit.
	Limit int64
	// RowID appends, after Columns, a non-null uint64 column named RowIDColumn: the row's
	// stable row id when the table has stable row ids, its row address otherwise.
	RowID bool
	// RowAddr appends, after Columns and after the row id column when both are asked, a
	// non-null uint64 column named RowAddrColumn: the row's address.
	RowAddr bool
	// Index, when set, lets the table read only the rows its scalar indexes select (see
	// Indexed): Morsels drops fragments and ranges without selected rows, Scan reads only
	// selected rows. The selection is a superset of the matching rows: the plan still
	// applies the full filter. Tables without indexes ignore it.
	Index *IndexFilter
	// Prefilter, when set, lets the reader evaluate part of the scan's filter on a few
	// columns first and decode the other columns only at the rows it keeps (late
	// materialization). Readers that cannot apply it ignore it; a reader that does
	// reports it through Prefiltered.
	Prefilter *Prefilter
}

// Prefilter is a row selection a reader may apply to each batch before it decodes the
// batch's other columns.
type Prefilter struct {
	// Columns are positions in the output (indices into ScanRequest.Columns, never the
	// hidden row columns) that Select reads, in the order Select's batch holds them.
	Columns []int
	// Select returns the positions (ascending, unique) of b's rows to keep; b holds
	// Columns only, under their table names. The returned slice is the reader's until its
	// next call to Select; Select must not keep b.
	Select func(ctx context.Context, b arrow.RecordBatch) ([]int32, error)
	// Take returns the rows of b at sel (ascending positions) in newly allocated columns (never
	// b's buffers, even when sel keeps every row); b stays the caller's.
	Take func(ctx context.Context, b arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error)
	// MaxKept is the fraction of a batch's rows above which the reader decodes the other
	// columns in full and then takes the kept rows (below it, it decodes them only at the
	// kept rows).
	MaxKept float64
}

// Prefiltered is implemented by readers that may apply ScanRequest.Prefilter: when
// Prefiltered reports true, every batch the reader returns holds only rows Select kept.
type Prefiltered interface {
	Prefiltered() bool
}

// Names of the hidden row columns a ScanRequest can ask for. They never appear in
// Table.Schema(); a table with a real column of the same name keeps its real column.
const (
	// RowIDColumn is the name of the row id column (ScanRequest.RowID).
	RowIDColumn = "_rowid"
	// RowAddrColumn is the name of the row address column (ScanRequest.RowAddr): for Lance
	// tables fragment id << 32 | physical offset in the fragment.
	RowAddrColumn = "_rowaddr"
)

// RowFields returns the fields of the hidden row columns r asks for, in output order
// (after the fields of Columns).
func (r ScanRequest) RowFields() []arrow.Field {
	var out []arrow.Field
	if r.RowID {
		out = append(out, arrow.Field{Name: RowIDColumn, Type: arrow.PrimitiveTypes.Uint64})
	}
	if r.RowAddr {
		out = append(out, arrow.Field{Name: RowAddrColumn, Type: arrow.PrimitiveTypes.Uint64})
	}
	return out
}

// Morsel is a contiguous range of rows of one fragment. It is a plain value so that it can
// travel in a ticket.
type Morsel struct {
	Fragment uint64 // fragment id
	Start    int64  // first physical row offset in the fragment, inclusive
	End      int64  // last physical row offset, exclusive
}

// RecordReader streams the batches of a scan. Each batch returned by Next is owned by the
// caller, which must Release it.
type RecordReader interface {
	// Schema is the schema of every batch.
	Schema() *arrow.Schema
	// Next returns the next batch, or (nil, nil) at the end.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Close releases the reader's resources. It is safe to call more than once.
	Close() error
}
