package table

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// RewriteGroup replaces fragments by new ones holding the same live rows (compaction).
type RewriteGroup struct {
	Old []uint64                // ids of the replaced fragments, as of the read version
	New []*lancepb.DataFragment // written by WriteFragments
}

// rewriteOp replaces groups of fragments (Lance's Rewrite).
type rewriteOp struct {
	groups []RewriteGroup
	old    map[uint64]*lancepb.DataFragment // replaced fragments as of the read version
}

// NewRewrite is the operation that replaces the Old fragments of each group (as they are
// in read, deletion files included) by its New fragments. With stable row ids the New
// fragments must hold the live rows of the Old fragments in order (Old's order, then row
// offset): they get those rows' ids and version sequences. Row addresses of the moved rows
// change; index fragment bitmaps are not remapped (readers intersect them with the
// existing fragments, so the new fragments are simply unindexed).
func NewRewrite(read *Manifest, groups []RewriteGroup) (Operation, error) {
	byID := map[uint64]*lancepb.DataFragment{}
	for _, f := range read.Fragments() {
		byID[f.GetId()] = f
	}
	o := &rewriteOp{groups: groups, old: map[uint64]*lancepb.DataFragment{}}
	for _, g := range groups {
		for _, id := range g.Old {
			f, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("%w: rewrite fragment %d: no such fragment in version %d", ErrInvalidWrite, id, read.Version())
			}
			if _, dup := o.old[id]; dup {
				return nil, fmt.Errorf("%w: rewrite fragment %d twice", ErrInvalidWrite, id)
			}
			o.old[id] = f
		}
	}
	return o, nil
}

func (o *rewriteOp) Name() string { return "rewrite" }

func (o *rewriteOp) touches(ids ...uint64) bool {
	return slices.ContainsFunc(ids, func(id uint64) bool { _, ok := o.old[id]; return ok })
}

func fragIDs(fs []*lancepb.DataFragment) []uint64 {
	out := make([]uint64, len(fs))
	for i, f := range fs {
		out[i] = f.GetId()
	}
	return out
}

// check: the rewritten fragments must be exactly as read, so any concurrent change to them
// (deletes included) forces a re-plan.
func (o *rewriteOp) check(theirs *lancepb.Transaction, v uint64) error {
	busy := false
	switch t := theirs.GetOperation().(type) {
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_:
		return conflict(o, theirs, v, false, "the table was replaced")
	case *lancepb.Transaction_Merge_, *lancepb.Transaction_Project_:
		return conflict(o, theirs, v, true, "the schema changed concurrently")
	case *lancepb.Transaction_Delete_:
		busy = o.touches(append(fragIDs(t.Delete.GetUpdatedFragments()), t.Delete.GetDeletedFragmentIds()...)...)
	case *lancepb.Transaction_Update_:
		busy = o.touches(append(fragIDs(t.Update.GetUpdatedFragments()), t.Update.GetRemovedFragmentIds()...)...)
	case *lancepb.Transaction_Rewrite_:
		for _, g := range t.Rewrite.GetGroups() {
			busy = busy || o.touches(fragIDs(g.GetOldFragments())...)
		}
		busy = busy || o.touches(fragIDs(t.Rewrite.GetOldFragments())...)
	case *lancepb.Transaction_DataReplacement_:
		for _, r := range t.DataReplacement.GetReplacements() {
			busy = busy || o.touches(r.GetFragmentId())
		}
	}
	if busy {
		return conflict(o, theirs, v, true, "a fragment it rewrites changed concurrently")
	}
	return nil
}

func (o *rewriteOp) build(ctx context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: rewrite: %w", b.ds.describe(), ErrVersionNotFound)
	}
	df := b.base.DataFormatVersion()
	found := 0
	for i, f := range b.next.Fragments {
		old, ok := o.old[f.GetId()]
		if !ok {
			continue
		}
		if !proto.Equal(f, old) {
			return &CommitConflictError{Op: o.Name(), TheirOp: "a concurrent commit", TheirVersion: b.baseVersion(),
				Retryable: true, Reason: fmt.Sprintf("fragment %d changed", f.GetId())}
		}
		b.next.Fragments[i] = nil
		found++
	}
	if found != len(o.old) {
		return &CommitConflictError{Op: o.Name(), TheirOp: "a concurrent commit", TheirVersion: b.baseVersion(),
			Retryable: true, Reason: "a fragment it rewrites was removed"}
	}
	b.next.Fragments = slices.DeleteFunc(b.next.Fragments, func(f *lancepb.DataFragment) bool { return f == nil })
	rw := &lancepb.Transaction_Rewrite{}
	for _, g := range o.groups {
		if err := checkFileVersions(g.New, df); err != nil {
			return fmt.Errorf("%s: rewrite: %w", b.ds.describe(), err)
		}
		pg := &lancepb.Transaction_RewriteGroup{NewFragments: assignIDs(b, g.New)}
		if err := o.carryRowIDs(ctx, b, g, pg.NewFragments); err != nil {
			return fmt.Errorf("%s: rewrite: %w", b.ds.describe(), err)
		}
		b.next.Fragments = append(b.next.Fragments, pg.NewFragments...)
		for _, id := range g.Old {
			pg.OldFragments = append(pg.OldFragments, o.old[id])
		}
		rw.Groups = append(rw.Groups, pg)
	}
	b.txn.Operation = &lancepb.Transaction_Rewrite_{Rewrite: rw}
	return nil
}
