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
