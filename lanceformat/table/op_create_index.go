package table

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// createIndexOp adds and removes index segments (Lance's CreateIndex). CREATE INDEX adds one
// segment, DROP INDEX removes every segment of a name, and incremental maintenance adds a
// segment covering the fragments appended since (a "delta" segment sharing the name).
type createIndexOp struct {
	added   []*lancepb.IndexMetadata
	removed []*lancepb.IndexMetadata
}

// NewCreateIndex is the operation that adds the index segments added (their files already
// written under _indices/) and removes the segments removed (as listed in the read version;
// matched by uuid). Their files are left for cleanup, as Lance leaves them.
func NewCreateIndex(added, removed []*lancepb.IndexMetadata) (Operation, error) {
	if len(added) == 0 && len(removed) == 0 {
		return nil, fmt.Errorf("%w: create_index with no index to add or remove", ErrInvalidWrite)
	}
	for _, ix := range added {
		if len(ix.GetUuid().GetUuid()) != 16 || ix.GetName() == "" || len(ix.GetFields()) == 0 {
			return nil, fmt.Errorf("%w: create_index: new index %q needs a 16-byte uuid, a name and fields",
				ErrInvalidWrite, ix.GetName())
		}
	}
	return &createIndexOp{added: added, removed: removed}, nil
}

func (o *createIndexOp) Name() string { return "create_index" }

// names are the index names this operation adds or removes segments of.
func (o *createIndexOp) names() []string {
	var out []string
	for _, ix := range append(slices.Clone(o.added), o.removed...) {
		out = append(out, ix.GetName())
	}
	return out
}

// covered is the union of the fragments the added segments cover.
func (o *createIndexOp) covered() map[uint64]bool {
	out := map[uint64]bool{}
	for _, ix := range o.added {
		ids, err := DecodeRoaring(ix.GetFragmentBitmap(), math.MaxUint32)
		if err != nil {
			continue // our own bitmaps decode; a bad one only weakens the check
		}
		for _, id := range ids {
			out[uint64(id)] = true
		}
	}
	return out
}

// fields are the field ids the added segments index.
func (o *createIndexOp) fields() []int32 {
	var out []int32
	for _, ix := range o.added {
		out = append(out, ix.GetFields()...)
	}
	return out
}

// check follows Lance's rules (spec §2.5): compatible with appends, deletes, updates, merges
// and config changes; retryable against a rewrite of a covered fragment, a data replacement
// of an indexed field, or another index change to the same index name; incompatible with an
// overwrite or a restore.
func (o *createIndexOp) check(theirs *lancepb.Transaction, v uint64) error {
	switch t := theirs.GetOperation().(type) {
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_, *lancepb.Transaction_UpdateMemWalState_:
		return conflict(o, theirs, v, false, "the table was replaced")
	case *lancepb.Transaction_Rewrite_:
		cov := o.covered()
		var old []*lancepb.DataFragment
		for _, g := range t.Rewrite.GetGroups() {
			old = append(old, g.GetOldFragments()...)
		}
		old = append(old, t.Rewrite.GetOldFragments()...)
		if slices.ContainsFunc(old, func(f *lancepb.DataFragment) bool { return cov[f.GetId()] }) {
			return conflict(o, theirs, v, true, "a fragment the new index covers was rewritten")
		}
	case *lancepb.Transaction_DataReplacement_:
		fs := o.fields()
		for _, r := range t.DataReplacement.GetReplacements() {
			if slices.ContainsFunc(r.GetNewFile().GetFields(), func(f int32) bool { return slices.Contains(fs, f) }) {
				return conflict(o, theirs, v, true, "an indexed column was replaced")
			}
		}
	case *lancepb.Transaction_CreateIndex_:
		mine := o.names()
		for _, ix := range append(slices.Clone(t.CreateIndex.GetNewIndices()), t.CreateIndex.GetRemovedIndices()...) {
			if slices.Contains(mine, ix.GetName()) {
				return conflict(o, theirs, v, true, fmt.Sprintf("index %q changed concurrently", ix.GetName()))
			}
		}
	}
	return nil
}

func (o *createIndexOp) build(_ context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: create_index: %w", b.ds.describe(), ErrVersionNotFound)
	}
	for _, r := range o.removed {
		i := slices.IndexFunc(b.indices, func(ix *lancepb.IndexMetadata) bool {
			return bytes.Equal(ix.GetUuid().GetUuid(), r.GetUuid().GetUuid())
		})
		if i < 0 {
			return &CommitConflictError{Op: o.Name(), TheirOp: "a concurrent commit", TheirVersion: b.baseVersion(),
				Retryable: true, Reason: fmt.Sprintf("index %q segment %s was removed", r.GetName(), hyphenUUID(r.GetUuid().GetUuid()))}
		}
		b.indices = slices.Delete(b.indices, i, i+1)
	}
	known := map[int32]bool{}
	for _, f := range b.next.GetFields() {
		known[f.GetId()] = true
	}
	for _, ix := range o.added {
		for _, f := range ix.GetFields() {
			if !known[f] {
				return &CommitConflictError{Op: o.Name(), TheirOp: "a concurrent commit", TheirVersion: b.baseVersion(),
					Retryable: true, Reason: fmt.Sprintf("index %q: field %d is no longer in the schema", ix.GetName(), f)}
			}
		}
		b.indices = append(b.indices, proto.Clone(ix).(*lancepb.IndexMetadata))
	}
	b.txn.Operation = &lancepb.Transaction_CreateIndex_{CreateIndex: &lancepb.Transaction_CreateIndex{
		NewIndices: o.added, RemovedIndices: o.removed}}
	return nil
}
