package table

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// restoreOp commits an old version's content as the newest version (Lance's Restore).
type restoreOp struct{ version uint64 }

// NewRestore is the operation that makes version v's content (schema, fragments, indices,
// config) the newest version. The fragment-id high-water mark never goes back, so ids are
// never reused.
func NewRestore(v uint64) Operation { return &restoreOp{version: v} }

func (o *restoreOp) Name() string { return "restore" }

// check: a restore replaces everything, whatever was committed meanwhile.
func (o *restoreOp) check(*lancepb.Transaction, uint64) error { return nil }

func (o *restoreOp) build(ctx context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: restore: %w", b.ds.describe(), ErrVersionNotFound)
	}
	old, err := b.ds.Checkout(ctx, o.version)
	if err != nil {
		return fmt.Errorf("%s: restore: %w", b.ds.describe(), err)
	}
	hw := b.next.MaxFragmentId
	b.next = proto.Clone(old.Proto).(*lancepb.Manifest)
	b.next.ProtoReflect().SetUnknown(nil)
	b.next.IndexSection, b.next.TransactionSection = nil, nil
	b.next.TransactionFile, b.next.Tag = "", ""
	b.next.Version = b.baseVersion() + 1
	if hw != nil && (b.next.MaxFragmentId == nil || *b.next.MaxFragmentId < *hw) {
		b.next.MaxFragmentId = proto.Uint32(*hw)
	}
	b.indices = nil
	for _, ix := range old.Indices {
		b.indices = append(b.indices, proto.Clone(ix).(*lancepb.IndexMetadata))
	}
	b.txn.Operation = &lancepb.Transaction_Restore_{Restore: &lancepb.Transaction_Restore{Version: o.version}}
	return nil
}

// Restore commits version v's content as a new version.
func (d *Dataset) Restore(ctx context.Context, v uint64) (*Manifest, error) {
	latest, err := d.LatestVersion(ctx)
	if err != nil {
		return nil, err
	}
	return d.Commit(ctx, latest, NewRestore(v), nil)
}

// DropColumns drops top-level columns by name from the latest version.
func (d *Dataset) DropColumns(ctx context.Context, names ...string) (*Manifest, error) {
	latest, err := d.LatestVersion(ctx)
	if err != nil {
		return nil, err
	}
	return d.Commit(ctx, latest, NewDropColumns(names...), nil)
}

// RenameColumn renames a top-level column of the latest version.
func (d *Dataset) RenameColumn(ctx context.Context, from, to string) (*Manifest, error) {
	latest, err := d.LatestVersion(ctx)
	if err != nil {
		return nil, err
	}
	return d.Commit(ctx, latest, NewRenameColumn(from, to), nil)
}
