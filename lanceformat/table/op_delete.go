package table

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// RowsByFragment groups row addresses (fragment_id<<32 | row offset) by fragment.
func RowsByFragment(addrs []uint64) map[uint64][]uint32 {
	out := map[uint64][]uint32{}
	for _, a := range addrs {
		out[a>>32] = append(out[a>>32], uint32(a))
	}
	return out
}

// deletion is the delete half of Delete and Update: row offsets to delete per fragment,
// with the fragments as they were at the read version. It is applied at build time on top
// of the deletion vector the fragment has in the base manifest, so concurrent deletes on
// the same fragment merge (Lance's rebase of Delete vs Delete).
type deletion struct {
	read map[uint64]*lancepb.DataFragment
	rows map[uint64][]uint32
	ids  []uint64 // sorted keys of rows
}

// newDeletion validates rows against the read manifest.
func newDeletion(read *Manifest, rows map[uint64][]uint32) (*deletion, error) {
	dl := &deletion{read: map[uint64]*lancepb.DataFragment{}, rows: map[uint64][]uint32{}}
	byID := map[uint64]*lancepb.DataFragment{}
	for _, f := range read.Fragments() {
		byID[f.GetId()] = f
	}
	for id, offs := range rows {
		f, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w: delete from fragment %d: no such fragment in version %d", ErrInvalidWrite, id, read.Version())
		}
		for _, o := range offs {
			if uint64(o) >= f.GetPhysicalRows() {
				return nil, fmt.Errorf("%w: delete row %d of fragment %d, which has %d rows", ErrInvalidWrite, o, id, f.GetPhysicalRows())
			}
		}
		if len(offs) == 0 {
			continue
		}
		dl.read[id] = f
		dl.rows[id] = sortedUnique(slices.Clone(offs))
		dl.ids = append(dl.ids, id)
	}
	slices.Sort(dl.ids)
	return dl, nil
}

func (dl *deletion) touches(id uint64) bool { _, ok := dl.rows[id]; return ok }

func (dl *deletion) touchesAny(ids []uint64) bool {
	return slices.ContainsFunc(ids, dl.touches)
}

// check is the conflict rule of Delete/Update (§2.5). Concurrent deletes of the same
// fragment are fine here; apply merges them or finds that the fragment changed.
func (dl *deletion) check(op Operation, theirs *lancepb.Transaction, v uint64) error {
	switch t := theirs.GetOperation().(type) {
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_:
		return conflict(op, theirs, v, false, "the table was replaced")
	case *lancepb.Transaction_Merge_:
		return conflict(op, theirs, v, true, "columns were added concurrently")
	case *lancepb.Transaction_Rewrite_:
		for _, g := range t.Rewrite.GetGroups() {
			if slices.ContainsFunc(g.GetOldFragments(), func(f *lancepb.DataFragment) bool { return dl.touches(f.GetId()) }) {
				return conflict(op, theirs, v, true, "a fragment it deletes from was rewritten")
			}
		}
		if slices.ContainsFunc(t.Rewrite.GetOldFragments(), func(f *lancepb.DataFragment) bool { return dl.touches(f.GetId()) }) {
			return conflict(op, theirs, v, true, "a fragment it deletes from was rewritten")
		}
	case *lancepb.Transaction_DataReplacement_:
		for _, r := range t.DataReplacement.GetReplacements() {
			if dl.touches(r.GetFragmentId()) {
				return conflict(op, theirs, v, true, "a fragment it deletes from had data replaced")
			}
		}
	case *lancepb.Transaction_Delete_:
		if dl.touchesAny(t.Delete.GetDeletedFragmentIds()) {
			return conflict(op, theirs, v, true, "a fragment it deletes from was removed")
		}
	case *lancepb.Transaction_Update_:
		if dl.touchesAny(t.Update.GetRemovedFragmentIds()) {
			return conflict(op, theirs, v, true, "a fragment it deletes from was removed")
		}
	}
	return nil
}

// apply deletes the rows in b.next, writing merged deletion files. It returns the updated
// fragments and the ids of fragments removed because all their rows are deleted.
func (dl *deletion) apply(ctx context.Context, op Operation, b *buildState) ([]*lancepb.DataFragment, []uint64, error) {
	if b.base == nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", b.ds.describe(), op.Name(), ErrVersionNotFound)
	}
	pos := map[uint64]int{}
	for i, f := range b.next.Fragments {
		pos[f.GetId()] = i
	}
	var updated []*lancepb.DataFragment
	var removed []uint64
	for _, id := range dl.ids {
		i, ok := pos[id]
		if !ok || !sameFiles(b.next.Fragments[i], dl.read[id]) {
			return nil, nil, &CommitConflictError{Op: op.Name(), TheirOp: "a concurrent commit", TheirVersion: b.baseVersion(),
				Retryable: true, Reason: fmt.Sprintf("fragment %d was removed or rewritten", id)}
		}
		cur := b.next.Fragments[i]
		dv, err := b.ds.ReadFragmentDeletions(ctx, b.base, cur) // the old file may be under a base
		if err != nil {
			return nil, nil, err
		}
		all := sortedUnique(append(slices.Clone(dv.Offsets()), dl.rows[id]...))
		switch {
		case uint64(len(all)) >= cur.GetPhysicalRows():
			removed = append(removed, id)
			b.next.Fragments[i] = nil
		case len(all) == dv.Len():
			// every row was already deleted: nothing changes
		default:
			df, err := b.ds.writeDeletionFile(ctx, id, b.baseVersion(), all)
			if err != nil {
				return nil, nil, err
			}
			nf := proto.Clone(cur).(*lancepb.DataFragment)
			nf.DeletionFile = df
			b.next.Fragments[i] = nf
			updated = append(updated, nf)
		}
	}
	b.next.Fragments = slices.DeleteFunc(b.next.Fragments, func(f *lancepb.DataFragment) bool { return f == nil })
	return updated, removed, nil
}

// sameFiles reports whether two versions of a fragment have the same data files.
func sameFiles(a, b *lancepb.DataFragment) bool {
	if len(a.GetFiles()) != len(b.GetFiles()) || a.GetPhysicalRows() != b.GetPhysicalRows() {
		return false
	}
	for i := range a.GetFiles() {
		if !proto.Equal(a.GetFiles()[i], b.GetFiles()[i]) {
			return false
		}
	}
	return true
}

// deleteOp deletes rows (Lance's Delete).
type deleteOp struct {
	dl        *deletion
	predicate string
}

// NewDelete is the operation that deletes the given row offsets (per fragment id) of the
// table as of read. predicate is recorded in the transaction (informational). Fragments
// whose rows all end up deleted are dropped.
func NewDelete(read *Manifest, rows map[uint64][]uint32, predicate string) (Operation, error) {
	dl, err := newDeletion(read, rows)
	if err != nil {
		return nil, err
	}
	return &deleteOp{dl: dl, predicate: predicate}, nil
}

func (o *deleteOp) Name() string { return "delete" }

func (o *deleteOp) check(theirs *lancepb.Transaction, v uint64) error {
	return o.dl.check(o, theirs, v)
}

func (o *deleteOp) build(ctx context.Context, b *buildState) error {
	updated, removed, err := o.dl.apply(ctx, o, b)
	if err != nil {
		return err
	}
	b.txn.Operation = &lancepb.Transaction_Delete_{Delete: &lancepb.Transaction_Delete{
		UpdatedFragments: updated, DeletedFragmentIds: removed, Predicate: o.predicate}}
	return nil
}

// DeleteRows deletes rows (offsets per fragment id, as of version readVersion) and commits.
func (d *Dataset) DeleteRows(ctx context.Context, readVersion uint64, rows map[uint64][]uint32, predicate string) (*Manifest, error) {
	read, err := d.Checkout(ctx, readVersion)
	if err != nil {
		return nil, err
	}
	op, err := NewDelete(read, rows, predicate)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.describe(), err)
	}
	return d.Commit(ctx, readVersion, op, nil)
}
