package lancecat

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/table"
)

// Writes. A table "<name>" is the Lance dataset "<name>.lance/" under the store root; every
// write commits a new version with Lance's commit protocol (lanceformat/table.Commit), so
// pylance and other Lance writers can work on the same tables concurrently. Conflicts are
// reported as table.ErrCommitConflict or table.ErrRetryableCommitConflict.

// Dataset returns the Lance dataset of table name, for operations this file has no
// shortcut for (update, add/drop/rename columns, tags, restore, cleanup). It does no I/O.
func (c *Catalog) Dataset(name string) (*table.Dataset, error) {
	if !validName(name) {
		return nil, fmt.Errorf("table %q: invalid name: %w", name, catalog.ErrNoSuchTable)
	}
	return c.dataset(name), nil
}

// CreateTable implements catalog.Writer with Lance's defaults (data storage version 2.2, V2
// manifest names).
func (c *Catalog) CreateTable(ctx context.Context, name string, as *arrow.Schema, batches []arrow.RecordBatch,
	mode catalog.CreateMode) (uint64, error) {
	opts := &table.CreateOptions{Mode: table.CreateOnly}
	if mode == catalog.CreateOrReplace {
		opts.Mode = table.CreateOrOverwrite
	}
	return c.CreateTableWith(ctx, name, as, batches, opts)
}

var _ catalog.Writer = (*Catalog)(nil)

// CreateTableWith creates table name with Arrow schema as and the rows of batches (Lance data
// storage version 2.2 and V2 manifest names unless opts say otherwise; opts.Mode
// CreateOrOverwrite replaces an existing table). It returns the committed version (the
// version after the automatic zone maps' commit when the table has them: AutoZoneMapKey).
func (c *Catalog) CreateTableWith(ctx context.Context, name string, as *arrow.Schema, batches []arrow.RecordBatch,
	opts *table.CreateOptions) (uint64, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return 0, err
	}
	m, err := ds.Create(ctx, as, batches, withAutoZoneMapConfig(as, opts))
	if err != nil {
		return 0, fmt.Errorf("create table %q: %w", name, classify(err))
	}
	if AutoZoneMaps(m) {
		return c.afterWrite(ctx, name, m.Version()), nil
	}
	return m.Version(), nil
}

// Append appends the rows of batches (whose columns must be the table's, in order) to the
// latest version of table name and returns the committed version (the version after the
// automatic zone maps' commit when the table has them: AutoZoneMapKey).
func (c *Catalog) Append(ctx context.Context, name string, batches []arrow.RecordBatch) (uint64, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return 0, err
	}
	m, err := ds.Append(ctx, batches, nil)
	if err != nil {
		return 0, writeError(ctx, ds, "append to", name, err)
	}
	if AutoZoneMaps(m) {
		return c.afterWrite(ctx, name, m.Version()), nil
	}
	return m.Version(), nil
}

// DeleteRows deletes the rows at the given row addresses (fragment_id<<32 | row offset) of
// version readVersion of table name and returns the committed version. Concurrent deletes
// and appends are merged; a concurrent compaction or overwrite is a conflict.
func (c *Catalog) DeleteRows(ctx context.Context, name string, readVersion uint64, rowAddrs []uint64) (uint64, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return 0, err
	}
	m, err := ds.DeleteRows(ctx, readVersion, table.RowsByFragment(rowAddrs), "")
	if err != nil {
		return 0, writeError(ctx, ds, "delete from", name, err)
	}
	return m.Version(), nil
}

// writeError maps "version not found" to catalog.ErrNoSuchTable when the table has no
// version at all, else to catalog.ErrNoSuchVersion, and classifies the rest.
func writeError(ctx context.Context, ds *table.Dataset, what, name string, err error) error {
	if errors.Is(err, table.ErrVersionNotFound) {
		kind := catalog.ErrNoSuchVersion
		if _, lerr := ds.LatestVersion(ctx); errors.Is(lerr, table.ErrVersionNotFound) {
			kind = catalog.ErrNoSuchTable
		}
		return fmt.Errorf("%s table %q: %w: %w", what, name, kind, err)
	}
	return fmt.Errorf("%s table %q: %w", what, name, classify(err))
}
