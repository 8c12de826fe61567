package lancecat

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// CompactOptions tunes Compact. The zero value is valid.
type CompactOptions struct {
	// TargetRows is the row count of a full fragment: fragments with fewer physical rows,
	// or with deleted rows, are rewritten into fragments of up to TargetRows rows
	// (default table.DefaultMaxRowsPerFile).
	TargetRows int
	// Allocator is used for the rows read and written (default memory.DefaultAllocator).
	Allocator memory.Allocator
}

// CompactStats says what Compact did.
type CompactStats struct {
	FragmentsRemoved, FragmentsAdded int
}

// Compact rewrites the small fragments and the fragments with deleted rows of the latest
// version of table name into as few full fragments as possible (dropping deleted rows),
// and commits a Rewrite. It returns the version after compaction (unchanged when there is
// nothing to do). A concurrent delete or update of a rewritten fragment makes the commit
// fail with table.ErrRetryableCommitConflict.
//
// With stable row ids the moved rows keep their ids (and version sequences).
//
// Not supported yet: streaming (the live rows of all rewritten fragments are held in
// memory at once) and remapping index fragment bitmaps.
func (c *Catalog) Compact(ctx context.Context, name string, opts *CompactOptions) (uint64, CompactStats, error) {
	var st CompactStats
	o := CompactOptions{TargetRows: table.DefaultMaxRowsPerFile, Allocator: memory.DefaultAllocator}
	if opts != nil && opts.TargetRows > 0 {
		o.TargetRows = opts.TargetRows
	}
	if opts != nil && opts.Allocator != nil {
		o.Allocator = opts.Allocator
	}
	loaded, err := c.LoadTable(ctx, name, catalog.VersionRef{})
	if err != nil {
		return 0, st, err
	}
	t := loaded.(*Table)
	m := t.Manifest()
	if err := table.CheckWritableFor(m, "rewrite"); err != nil {
		return 0, st, fmt.Errorf("compact table %q: %w", name, classify(err))
	}
	var old []uint64
	for _, f := range m.Fragments() {
		if f.GetDeletionFile() != nil || f.GetPhysicalRows() < uint64(o.TargetRows) {
			old = append(old, f.GetId())
		}
	}
	if len(old) < 2 && (len(old) == 0 || m.Fragments()[t.frags[old[0]]].GetDeletionFile() == nil) {
		return m.Version(), st, nil
	}
	batches, err := t.readFragments(ctx, old, o.Allocator)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if err != nil {
		return 0, st, fmt.Errorf("compact table %q: %w", name, err)
	}
	v, err := c.rewrite(ctx, t, old, batches, o)
	if err != nil {
		return 0, st, fmt.Errorf("compact table %q: %w", name, classify(err))
	}
	return v.version, CompactStats{FragmentsRemoved: len(old), FragmentsAdded: v.added}, nil
}

type rewritten struct {
	version uint64
	added   int
}

// rewrite writes batches as new fragments and commits them in place of the old ones.
func (c *Catalog) rewrite(ctx context.Context, t *Table, old []uint64, batches []arrow.RecordBatch, o CompactOptions) (rewritten, error) {
	m := t.Manifest()
	sc, err := schema.FromProto(m.Fields())
	if err != nil {
		return rewritten{}, err
	}
	fv, err := table.FileVersion(m.DataFormatVersion())
	if err != nil {
		return rewritten{}, err
	}
	frags, err := t.ds.WriteFragments(ctx, sc, fv, batches, &table.WriteOptions{MaxRowsPerFile: o.TargetRows, Allocator: o.Allocator})
	if err != nil {
		return rewritten{}, err
	}
	op, err := table.NewRewrite(m, []table.RewriteGroup{{Old: old, New: frags}})
	if err != nil {
		return rewritten{}, err
	}
	nm, err := t.ds.Commit(ctx, m.Version(), op, nil)
	if err != nil {
		return rewritten{}, err
	}
	return rewritten{version: nm.Version(), added: len(frags)}, nil
}

// readFragments reads every live row of the given fragments, all columns. The caller
// releases the batches (also on error).
func (t *Table) readFragments(ctx context.Context, ids []uint64, mem memory.Allocator) ([]arrow.RecordBatch, error) {
	cols := make([]int, t.arrow.NumFields())
	for i := range cols {
		cols[i] = i
	}
	req := catalog.ScanRequest{Columns: cols, Limit: -1}
	var out []arrow.RecordBatch
	for _, id := range ids {
		n, err := t.physicalRows(ctx, t.frags[id])
		if err != nil {
			return out, err
		}
		rr, err := t.Scan(ctx, req, catalog.Morsel{Fragment: id, Start: 0, End: n}, mem)
		if err != nil {
			return out, err
		}
		for {
			b, err := rr.Next(ctx)
			if err != nil {
				_ = rr.Close()
				return out, err
			}
			if b == nil {
				break
			}
			out = append(out, b)
		}
		if err := rr.Close(); err != nil {
			return out, err
		}
	}
	return out, nil
}
