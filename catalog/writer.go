package catalog

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Write errors. Implementations wrap them so callers can classify failures with errors.Is.
var (
	// ErrTableExists means a table could not be created because one of that name exists.
	ErrTableExists = errors.New("table already exists")
	// ErrCommitConflict means a concurrent commit made this write impossible; retrying the
	// statement may succeed.
	ErrCommitConflict = errors.New("commit conflict")
)

// CreateMode says what CreateTable does when the table exists.
type CreateMode int

// Create modes.
const (
	CreateNew       CreateMode = iota // fail with ErrTableExists
	CreateOrReplace                   // replace the table's contents with a new version
)

// Writer is the optional capability of a catalog whose tables can be written, found by type
// assertion. Every method commits one new table version and returns it. The batches are not
// released; the caller still owns them.
type Writer interface {
	// CreateTable creates (or, with CreateOrReplace, overwrites) a table with the given schema
	// and rows.
	CreateTable(ctx context.Context, name string, schema *arrow.Schema, batches []arrow.RecordBatch, mode CreateMode) (uint64, error)
	// Append adds rows (with the table's schema) to the latest version.
	Append(ctx context.Context, name string, batches []arrow.RecordBatch) (uint64, error)
}

// Deleter is the optional capability of a catalog whose tables can lose rows, found by type
// assertion. The executor's DELETE uses it.
type Deleter interface {
	// DeleteRows deletes the rows at rowAddrs (RowAddr values: fragment id << 32 | row offset)
	// of version readVersion of table name, in one commit, and returns the committed version.
	// Commits made since readVersion are merged when they do not touch the same rows'
	// fragments; otherwise the result is ErrCommitConflict.
	DeleteRows(ctx context.Context, name string, readVersion uint64, rowAddrs []uint64) (uint64, error)
}

// Updater is the optional capability of a catalog whose rows can be rewritten, found by type
// assertion. The executor's UPDATE uses it.
type Updater interface {
	// UpdateRows replaces the rows at rowAddrs of version readVersion of table name with
	// newRows (the table's columns, in order; any number of batches whose total row count is
	// len(rowAddrs)) in one commit, and returns the committed version. The old rows are
	// deleted and the new ones written as new data, as Lance's Update does. Conflicts are
	// reported as for Deleter. The batches are not released.
	UpdateRows(ctx context.Context, name string, readVersion uint64, rowAddrs []uint64, newRows []arrow.RecordBatch) (uint64, error)
}

// Index errors. Implementations of Indexer wrap them.
var (
	// ErrIndexExists means CREATE INDEX found an index of that name on the table.
	ErrIndexExists = errors.New("index already exists")
	// ErrNoSuchIndex means the named index does not exist (on that table, or on any table).
	ErrNoSuchIndex = errors.New("no such index")
)

// IndexSpec is what CREATE INDEX builds: a scalar index over one top-level column.
type IndexSpec struct {
	Name   string
	Column string // the column's name as in Table.Schema()
	// Type is the index type as SQL spells it: "BTREE", "BITMAP", "LABEL_LIST", "ZONEMAP"
	// or "BLOOMFILTER" (case-insensitive).
	Type string
	// Allocator holds the column values read to train the index (nil: the Go allocator).
	Allocator memory.Allocator
}

// IndexChange is the result of an Indexer call.
type IndexChange struct {
	// Version is the committed table version; the read version when nothing was committed.
	Version uint64
	// Rows is the number of rows the new index segment covers (0 for DROP INDEX, or when
	// there was nothing to index).
	Rows int64
	// Committed is false when the call found nothing to do (OptimizeIndex with no fragment
	// left uncovered).
	Committed bool
}

// Indexer is the optional capability of a catalog whose tables can have scalar indexes built,
// maintained and dropped, found by type assertion. Each call that changes something commits
// one table version. Index names are per table (Lance has no schema-qualified index names).
type Indexer interface {
	// CreateIndex builds index spec over every live row of the latest version of table and
	// commits it. It fails with ErrIndexExists when the table has an index of that name.
	CreateIndex(ctx context.Context, table string, spec IndexSpec) (IndexChange, error)
	// DropIndex removes every segment of index name from the latest version of table. It
	// fails with ErrNoSuchIndex when the table has no such index.
	DropIndex(ctx context.Context, table, name string) (IndexChange, error)
	// OptimizeIndex brings index name up to date incrementally: one new segment covers the
	// fragments appended since the index was built or last optimized. mem holds the values
	// read (nil: the Go allocator).
	OptimizeIndex(ctx context.Context, table, name string, mem memory.Allocator) (IndexChange, error)
	// TablesWithIndex lists, sorted, the tables whose latest version has an index called
	// name (any index type, searchable or not).
	TablesWithIndex(ctx context.Context, name string) ([]string, error)
}
