package lancecat

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
)

// UpdateRows implements catalog.Updater: it deletes the rows at rowAddrs of version
// readVersion of table name and writes newRows (the table's columns, in order) as new
// fragments, in one Lance Update transaction (REWRITE_ROWS mode, as pylance's update
// writes), and returns the committed version. With stable row ids the new rows keep the
// ids of the rows they replace.
func (c *Catalog) UpdateRows(ctx context.Context, name string, readVersion uint64, rowAddrs []uint64,
	newRows []arrow.RecordBatch) (uint64, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return 0, err
	}
	m, err := ds.UpdateRows(ctx, readVersion, rowAddrs, newRows, nil)
	if err != nil {
		return 0, writeError(ctx, ds, "update", name, err)
	}
	return m.Version(), nil
}

var (
	_ catalog.Deleter = (*Catalog)(nil)
	_ catalog.Updater = (*Catalog)(nil)
)
