package table

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// updateOp deletes rows and adds their new versions as new fragments (Lance's Update in
// REWRITE_ROWS mode).
type updateOp struct {
	dl    *deletion
	frags []*lancepb.DataFragment
	addrs []uint64 // the old rows' addresses in new-row order; nil if unknown (NewUpdate)
}

// NewUpdate is the operation that deletes rows (offsets per fragment id, as of read) and
// appends newFrags, written by WriteFragments, holding the updated rows. It cannot be
// committed on a dataset with stable row ids (which new row replaces which old one is not
// known): use NewUpdateRows.
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
	frags := assignIDs(b, o.frags)
	if err := o.carryRowIDs(b, frags); err != nil {
		return fmt.Errorf("%s: update: %w", b.ds.describe(), err)
	}
	b.next.Fragments = append(b.next.Fragments, frags...)
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
	sc, v, err := writeSchema(read, "update")
	if err != nil {
		return nil, fmt.Errorf("%s: update: %w", d.describe(), err)
	}
	if UsesStableRowIDs(read) { // refused before any file is written
		return nil, fmt.Errorf("%s: update: %w (not supported yet: update without row addresses with stable row ids; use UpdateRows)",
			d.describe(), ErrUnsupportedFeature)
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

// NewUpdateRows is NewUpdate with the old rows given as row addresses (fragment_id<<32 |
// offset, as of read) in the order of the new rows in newFrags: with stable row ids each new
// row keeps the id (and created-at version) of the row it replaces, as Lance 14 does.
func NewUpdateRows(read *Manifest, addrs []uint64, newFrags []*lancepb.DataFragment) (Operation, error) {
	op, err := NewUpdate(read, RowsByFragment(addrs), newFrags)
	if err != nil {
		return nil, err
	}
	u := op.(*updateOp)
	u.addrs = slices.Clone(addrs)
	return u, nil
}

// UpdateRows is Update with the old rows given as row addresses (fragment_id<<32 | offset,
// as of readVersion), one per row of batches and in the same order, which also works on
// datasets with stable row ids (updated rows keep their ids).
func (d *Dataset) UpdateRows(ctx context.Context, readVersion uint64, addrs []uint64,
	batches []arrow.RecordBatch, opts *WriteOptions) (*Manifest, error) {
	read, err := d.Checkout(ctx, readVersion)
	if err != nil {
		return nil, err
	}
	sc, v, err := writeSchema(read, "update")
	if err != nil {
		return nil, fmt.Errorf("%s: update: %w", d.describe(), err)
	}
	frags, err := d.WriteFragments(ctx, sc, v, batches, opts)
	if err != nil {
		return nil, err
	}
	op, err := NewUpdateRows(read, addrs, frags)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.describe(), err)
	}
	return d.Commit(ctx, readVersion, op, nil)
}
