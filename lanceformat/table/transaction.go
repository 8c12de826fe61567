package table

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

const transactionsDir = "_transactions/"

// Operation is one change to a dataset, committed by Dataset.Commit. Operations are built
// by the constructors of this package (Append, Overwrite, Delete, ...). An Operation is
// planned against a read version and may be rebuilt on a newer base when a concurrent
// commit wins the race and the two are compatible.
type Operation interface {
	// Name is the operation's name as Lance spells it ("append", "delete", ...).
	Name() string
	// check decides whether this operation can still be committed after theirs was
	// committed at version v (a version newer than the read version). It returns nil or a
	// *CommitConflictError.
	check(theirs *lancepb.Transaction, v uint64) error
	// build turns b.next (a copy of the base manifest, or an empty one) into the manifest
	// this operation commits, writing any auxiliary files (deletion files) it needs, and
	// sets b.txn's operation.
	build(ctx context.Context, b *buildState) error
}

// OperationName is the name of a committed transaction's operation ("append", "delete",
// ...; "unknown" for an operation this package does not know).
func OperationName(t *lancepb.Transaction) string {
	switch t.GetOperation().(type) {
	case *lancepb.Transaction_Append_:
		return "append"
	case *lancepb.Transaction_Delete_:
		return "delete"
	case *lancepb.Transaction_Overwrite_:
		return "overwrite"
	case *lancepb.Transaction_CreateIndex_:
		return "create_index"
	case *lancepb.Transaction_Rewrite_:
		return "rewrite"
	case *lancepb.Transaction_Merge_:
		return "merge"
	case *lancepb.Transaction_Restore_:
		return "restore"
	case *lancepb.Transaction_ReserveFragments_:
		return "reserve_fragments"
	case *lancepb.Transaction_Update_:
		return "update"
	case *lancepb.Transaction_Project_:
		return "project"
	case *lancepb.Transaction_UpdateConfig_:
		return "update_config"
	case *lancepb.Transaction_DataReplacement_:
		return "data_replacement"
	case *lancepb.Transaction_UpdateMemWalState_:
		return "update_mem_wal_state"
	case *lancepb.Transaction_Clone_:
		return "clone"
	case *lancepb.Transaction_UpdateBases_:
		return "update_bases"
	default:
		return "unknown"
	}
}

// EncodeTransaction serializes t as a .txn file: the raw protobuf, no prefix or footer.
func EncodeTransaction(t *lancepb.Transaction) ([]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode transaction %s: %w", t.GetUuid(), err)
	}
	return b, nil
}

// ReadTransaction returns the transaction that committed manifest m: its inline transaction
// section, or else the file named by transaction_file. It fails with an error wrapping
// ErrCorruptFile when the file is bad, and wrapping lanceio.ErrNotFound when the version
// records no transaction at all.
func (d *Dataset) ReadTransaction(ctx context.Context, m *Manifest) (*lancepb.Transaction, error) {
	if m.Transaction != nil {
		return m.Transaction, nil
	}
	name := m.Proto.GetTransactionFile()
	if name == "" {
		return nil, fmt.Errorf("%s: version %d has no transaction: %w", d.describe(), m.Version(), lanceio.ErrNotFound)
	}
	p := d.Path(transactionsDir + name)
	size, err := d.store.Size(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read transaction %s (version %d): %w", p, m.Version(), err)
	}
	data, err := d.store.ReadRange(ctx, p, 0, size)
	if err != nil {
		return nil, fmt.Errorf("read transaction %s (version %d): %w", p, m.Version(), err)
	}
	t := &lancepb.Transaction{}
	if err := proto.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("transaction %s: %w: %w", p, ErrCorruptFile, err)
	}
	return t, nil
}

// commitFetchers bounds the concurrent reads of other writers' transactions in a commit.
const commitFetchers = 8

// fetched is one version's transaction (or why it could not be read) for a conflict check.
type fetched struct {
	txn *lancepb.Transaction
	err error
}

// fetchTransactions reads the transactions of versions first..base, concurrently, for
// conflict checking; result i is version first+i. A version missing from base's listing is
// looked up by name; the base version itself is not read again.
func (d *Dataset) fetchTransactions(ctx context.Context, op Operation, read, first uint64, base latest) []fetched {
	out := make([]fetched, base.version()-first+1)
	var g errgroup.Group
	g.SetLimit(commitFetchers)
	for i := range out {
		v := first + uint64(i)
		g.Go(func() error {
			out[i].txn, out[i].err = d.theirTransaction(ctx, op, read, v, base)
			return nil // errors are reported per version, in version order, by the caller
		})
	}
	_ = g.Wait()
	return out
}

// theirTransaction loads version v and its transaction for conflict checking. A version
// without a transaction cannot be checked: that is a retryable conflict, as in Lance.
func (d *Dataset) theirTransaction(ctx context.Context, op Operation, read, v uint64, base latest) (*lancepb.Transaction, error) {
	var m *Manifest
	var err error
	i, listed := slices.BinarySearchFunc(base.versions, v, func(vi VersionInfo, v uint64) int { return cmp.Compare(vi.Version, v) })
	switch {
	case v == base.version():
		m = base.m
	case listed:
		m, err = d.Load(ctx, base.versions[i])
	default:
		m, err = d.Checkout(ctx, v)
	}
	if err != nil {
		return nil, fmt.Errorf("conflict check against version %d: %w", v, err)
	}
	t, err := d.ReadTransaction(ctx, m)
	if errors.Is(err, lanceio.ErrNotFound) {
		return nil, &CommitConflictError{Op: op.Name(), ReadVersion: read, TheirOp: "unknown",
			TheirVersion: v, Retryable: true, Reason: "the committed version has no transaction file"}
	}
	if err != nil {
		return nil, fmt.Errorf("conflict check against version %d: %w", v, err)
	}
	return t, nil
}

// conflict builds a *CommitConflictError of op against theirs at version v; Commit fills in
// the read version.
func conflict(op Operation, theirs *lancepb.Transaction, v uint64, retryable bool, reason string) error {
	return &CommitConflictError{Op: op.Name(), TheirOp: OperationName(theirs), TheirVersion: v,
		Retryable: retryable, Reason: reason}
}
