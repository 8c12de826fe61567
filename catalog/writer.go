package catalog

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
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
