package table

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// Writer feature flags this package can honour when committing. Stable row ids (2) are
// supported by the operations that implement rowIDAware (see rowids_write.go); the others
// refuse them. Base paths (16) are: a commit keeps the manifest's base_paths and the base ids
// of the files it does not touch, and writes every new file (data, deletion) under the
// dataset's own root with no base id, as Lance does without target_bases (see bases.go).
const supportedWriterFlags = FlagDeletionFiles | FlagUseV2Format | FlagTableConfig | FlagBasePaths |
	FlagDisableTransactionFile | FlagStableRowIDs

// checkWriterFeatures refuses to write a dataset whose writer feature flags have a bit we
// do not implement, or that uses stable row ids when operation op (a Lance operation name:
// "append", "rewrite", ...) does not support them.
func checkWriterFeatures(base *Manifest, op string) error {
	if base == nil {
		return nil
	}
	if bad := base.Proto.GetWriterFeatureFlags() &^ supportedWriterFlags; bad != 0 {
		return fmt.Errorf("manifest %s (version %d): writer feature flags %#x: %w "+
			"(not supported yet: writing datasets with these newer features)",
			base.Path, base.Version(), bad, ErrUnsupportedFeature)
	}
	if usesStableRowIDs(base.Proto) && !stableRowIDOps[op] {
		return fmt.Errorf("manifest %s (version %d): %w (not supported yet: %s with stable row ids)",
			base.Path, base.Version(), ErrUnsupportedFeature, op)
	}
	return nil
}

// CheckWritable returns an error wrapping ErrUnsupportedFeature if this package cannot commit
// every kind of new version on top of m (unknown writer feature flags; stable row ids, which
// only some operations support: see CheckWritableFor). Datasets with base paths are writable.
// Commit checks it too; callers that write data files before committing check it first so
// that a refused commit leaves no files behind.
func CheckWritable(m *Manifest) error {
	return checkWriterFeatures(m, "every operation (create_index, restore, ...)")
}

// CheckWritableFor is CheckWritable for one operation, named as Lance names it ("append",
// "delete", "update", "rewrite", "merge", "project", "overwrite", "create_index", ...):
// with stable row ids, append, overwrite, delete, update, rewrite (compaction), merge (add
// columns) and project (drop/rename columns) are supported.
func CheckWritableFor(m *Manifest, op string) error { return checkWriterFeatures(m, op) }

// start prepares b.next as a copy of the base manifest (fields this package does not know
// are dropped) and b.txn with the transaction's identity.
func (b *buildState) start(uuid string, props map[string]string) {
	if b.base != nil {
		b.next = proto.Clone(b.base.Proto).(*lancepb.Manifest)
		b.next.ProtoReflect().SetUnknown(nil)
		for _, ix := range b.base.Indices {
			b.indices = append(b.indices, proto.Clone(ix).(*lancepb.IndexMetadata))
		}
	} else {
		b.next = &lancepb.Manifest{}
	}
	b.next.IndexSection, b.next.TransactionSection = nil, nil
	b.next.TransactionFile, b.next.Tag = "", ""
	b.next.Version = b.baseVersion() + 1
	b.txn = &lancepb.Transaction{ReadVersion: b.baseVersion(), Uuid: uuid}
	if len(props) > 0 {
		b.txn.TransactionProperties = make(map[string]string, len(props))
		for k, v := range props {
			b.txn.TransactionProperties[k] = v
		}
	}
}

// nextFragmentID is the first unused fragment id: one past the high-water mark.
func (b *buildState) nextFragmentID() uint64 {
	next := uint64(0)
	if b.next.MaxFragmentId != nil {
		next = uint64(*b.next.MaxFragmentId) + 1
	}
	for _, f := range b.next.GetFragments() {
		next = max(next, f.GetId()+1)
	}
	return next
}

// finish does what every commit does after the operation (§2.6): drop tombstoned data
// files, sort fragments, advance max_fragment_id, recompute feature flags, stamp the
// writer version and the commit time.
func (b *buildState) finish() error {
	m := b.next
	var maxID uint64
	for _, f := range m.Fragments {
		kept := f.Files[:0]
		for _, df := range f.Files {
			if !allTombstoned(df.GetFields()) {
				kept = append(kept, df)
			}
		}
		f.Files = kept
		maxID = max(maxID, f.GetId())
	}
	sort.Slice(m.Fragments, func(i, j int) bool { return m.Fragments[i].GetId() < m.Fragments[j].GetId() })
	for i := 1; i < len(m.Fragments); i++ {
		if m.Fragments[i].GetId() == m.Fragments[i-1].GetId() {
			return fmt.Errorf("build version %d: duplicate fragment id %d", m.GetVersion(), m.Fragments[i].GetId())
		}
	}
	if maxID > 0xFFFFFFFF {
		return fmt.Errorf("build version %d: fragment id %d does not fit in 32 bits", m.GetVersion(), maxID)
	}
	if len(m.Fragments) > 0 || m.MaxFragmentId != nil {
		hw := uint32(maxID)
		if m.MaxFragmentId != nil {
			hw = max(hw, *m.MaxFragmentId)
		}
		m.MaxFragmentId = &hw
	}
	b.recomputeFlags()
	m.WriterVersion = &lancepb.Manifest_WriterVersion{Library: WriterLibrary, Version: WriterVersion}
	m.Timestamp = timestamppb.New(time.Now())
	return nil
}

func allTombstoned(fields []int32) bool {
	if len(fields) == 0 {
		return false
	}
	for _, f := range fields {
		if f != -2 {
			return false
		}
	}
	return true
}

// recomputeFlags sets the feature flags from the manifest's contents, as Lance does on
// every commit; the writer-only choice of inline transactions is kept.
func (b *buildState) recomputeFlags() {
	m := b.next
	var reader uint64
	for _, f := range m.Fragments {
		if f.DeletionFile != nil {
			reader |= FlagDeletionFiles
			break
		}
	}
	if len(m.BasePaths) > 0 {
		reader |= FlagBasePaths
	}
	if usesStableRowIDs(m) { // set at creation, then kept
		reader |= FlagStableRowIDs
	}
	writer := reader
	if len(m.Config) > 0 {
		writer |= FlagTableConfig
	}
	writer |= m.GetWriterFeatureFlags() & FlagDisableTransactionFile
	m.ReaderFeatureFlags, m.WriterFeatureFlags = reader, writer
}

// encodeManifestFile serializes a manifest file (§3.1): [IndexSection][Transaction]
// [Manifest][trailer], the sections present only when there are indices / an inline
// transaction.
func encodeManifestFile(m *lancepb.Manifest, indices []*lancepb.IndexMetadata, txn *lancepb.Transaction) ([]byte, error) {
	opts := proto.MarshalOptions{Deterministic: true}
	c := proto.Clone(m).(*lancepb.Manifest)
	c.IndexSection, c.TransactionSection = nil, nil
	var out []byte
	appendSection := func(msg proto.Message, what string) (uint64, error) {
		b, err := opts.Marshal(msg)
		if err != nil {
			return 0, fmt.Errorf("encode manifest version %d: %s: %w", m.GetVersion(), what, err)
		}
		pos := uint64(len(out))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
		return pos, nil
	}
	if len(indices) > 0 {
		pos, err := appendSection(&lancepb.IndexSection{Indices: indices}, "index section")
		if err != nil {
			return nil, err
		}
		c.IndexSection = &pos
	}
	if txn != nil {
		pos, err := appendSection(txn, "transaction section")
		if err != nil {
			return nil, err
		}
		c.TransactionSection = &pos
	}
	manifestPos, err := appendSection(c, "manifest")
	if err != nil {
		return nil, err
	}
	out = binary.LittleEndian.AppendUint64(out, manifestPos)
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint16(out, 2)
	return append(out, magic...), nil
}
