package table

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// updateOp deletes rows and adds their new versions as new fragments (Lance's Update in
// REWRITE_ROWS mode).
type updateOp struct {
	dl    *deletion
	frags []*lancepb.DataFragment
}

// NewUpdate is the operation that deletes rows (offsets per fragment id, as of read) and
// appends newFrags, written by WriteFragments, holding the updated rows.
func NewUpdate(read *Manifest, rows map[uint64][]uint32, newFrags []*lancepb.DataFragment) (Operation, error) {
	dl, err := newDeletion(read, rows)
	if err != nil {
		return nil, err
	}
	return &updateOp{dl: dl, frags: newFrags}, nil
}

func (o *updateOp) Name() string { return "update" }

func (o *updateOp) check(theirs *lancepb.Transaction, v uint64) error {
	return o.dl.check(o, theirs, v)
}

func (o *updateOp) build(ctx context.Context, b *buildState) error {
	if b.base != nil {
		if err := checkFileVersions(o.frags, b.base.DataFormatVersion()); err != nil {
			return fmt.Errorf("%s: update: %w", b.ds.describe(), err)
		}
	}
	updated, removed, err := o.dl.apply(ctx, o, b)
	if err != nil {
		return err
	}
	b.next.Fragments = append(b.next.Fragments, assignIDs(b, o.frags)...)
	b.txn.Operation = &lancepb.Transaction_Update_{Update: &lancepb.Transaction_Update{
		RemovedFragmentIds: removed, UpdatedFragments: updated, NewFragments: unassigned(o.frags),
		UpdateMode: lancepb.Transaction_REWRITE_ROWS,
	}}
	return nil
}

// Update replaces rows: it deletes rows (offsets per fragment id, as of readVersion) and
// appends batches (the new row values, in the table's columns) in one commit.
func (d *Dataset) Update(ctx context.Context, readVersion uint64, rows map[uint64][]uint32,
	batches []arrow.RecordBatch, opts *WriteOptions) (*Manifest, error) {
	read, err := d.Checkout(ctx, readVersion)
	if err != nil {
		return nil, err
	}
	sc, v, err := writeSchema(read)
	if err != nil {
		return nil, fmt.Errorf("%s: update: %w", d.describe(), err)
	}
	frags, err := d.WriteFragments(ctx, sc, v, batches, opts)
	if err != nil {
		return nil, err
	}
	op, err := NewUpdate(read, rows, frags)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.describe(), err)
	}
	return d.Commit(ctx, readVersion, op, nil)
}
