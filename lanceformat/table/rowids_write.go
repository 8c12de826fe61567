package table

import (
	"context"
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// Writing stable row ids (reader/writer feature flag 2), the way Lance 14 does it:
//   - new rows (append, overwrite, create) get Range(next_row_id .. next_row_id+n) and
//     next_row_id advances; their created-at and last-updated-at version sequences are one
//     run at the commit's version;
//   - delete only adds deletion files: sequences are kept;
//   - update (rewrite rows) keeps the updated rows' ids and created-at versions in the new
//     fragments; their last-updated-at version is the commit's;
//   - compaction carries the live rows' ids and both version sequences into the new fragments;
//   - add columns keeps the ids and sets every row's last-updated-at version to the commit's.

// stableRowIDOps are the operations that can be committed on a dataset with stable row ids.
var stableRowIDOps = map[string]bool{
	"append": true, "overwrite": true, "delete": true, "update": true,
	"rewrite": true, "merge": true, "project": true,
}

// usesStableRowIDs reports whether manifest m has stable row ids (either feature flag).
func usesStableRowIDs(m *lancepb.Manifest) bool {
	return (m.GetReaderFeatureFlags()|m.GetWriterFeatureFlags())&FlagStableRowIDs != 0
}

// UsesStableRowIDs reports whether the dataset version m has stable row ids.
func UsesStableRowIDs(m *Manifest) bool { return usesStableRowIDs(m.Proto) }

// assignNewRowIDs gives the (already id-assigned) new fragments frags fresh row ids from
// b.next's next_row_id when the dataset has stable row ids.
func assignNewRowIDs(b *buildState, frags []*lancepb.DataFragment) error {
	if !usesStableRowIDs(b.next) {
		return nil
	}
	next := b.next.GetNextRowId()
	for _, f := range frags {
		n := f.GetPhysicalRows()
		seq, err := encodeRowIDSegments([]*lancepb.U64Segment{rangeSegment(next, next+n)})
		if err != nil {
			return err
		}
		f.RowIdSequence = &lancepb.DataFragment_InlineRowIds{InlineRowIds: seq}
		vs := sameVersion(n, b.next.GetVersion())
		if err := setVersionSequences(f, vs, vs); err != nil {
			return err
		}
		next += n
	}
	b.next.NextRowId = next
	return nil
}

// carriedRows are the row ids (and, when known, version sequences) of rows moved into new
// fragments, in the new fragments' row order.
type carriedRows struct {
	ids     []uint64
	created []uint64 // nil when unknown
	updated []uint64 // nil when unknown
}

// assignCarriedRowIDs splits rows over frags (by physical rows, in order) and stores them as
// the fragments' row-id and version sequences.
func assignCarriedRowIDs(frags []*lancepb.DataFragment, rows carriedRows) error {
	var total uint64
	for _, f := range frags {
		total += f.GetPhysicalRows()
	}
	if total != uint64(len(rows.ids)) {
		return fmt.Errorf("%w: %d new rows carry %d row ids", ErrInvalidWrite, total, len(rows.ids))
	}
	var at uint64
	for _, f := range frags {
		n := f.GetPhysicalRows()
		seq, err := encodeRowIDs(rows.ids[at : at+n])
		if err != nil {
			return err
		}
		f.RowIdSequence = &lancepb.DataFragment_InlineRowIds{InlineRowIds: seq}
		f.CreatedAtVersionSequence, f.LastUpdatedAtVersionSequence = nil, nil
		if rows.created != nil && rows.updated != nil {
			if err := setVersionSequences(f, rows.created[at:at+n], rows.updated[at:at+n]); err != nil {
				return err
			}
		}
		at += n
	}
	return nil
}

// fragmentRowIDs decodes the row id of every physical row of f.
func fragmentRowIDs(f *lancepb.DataFragment) ([]uint64, error) {
	if f.GetExternalRowIds() != nil {
		return nil, fmt.Errorf("fragment %d: %w (not supported yet: external row id sequences)", f.GetId(), ErrUnsupportedFeature)
	}
	if f.GetInlineRowIds() == nil {
		return nil, fmt.Errorf("fragment %d: %w: no row id sequence in a dataset with stable row ids", f.GetId(), ErrCorruptFile)
	}
	ids, err := DecodeRowIDs(f.GetInlineRowIds(), f.GetPhysicalRows())
	if err != nil {
		return nil, fmt.Errorf("fragment %d: %w", f.GetId(), err)
	}
	return ids, nil
}

// fragmentVersions decodes f's created-at (created) or last-updated-at version of every
// physical row; nil when f has no inline sequence.
func fragmentVersions(f *lancepb.DataFragment, created bool) ([]uint64, error) {
	data := f.GetInlineLastUpdatedAtVersions()
	if created {
		data = f.GetInlineCreatedAtVersions()
	}
	if data == nil {
		return nil, nil
	}
	var seq lancepb.RowDatasetVersionSequence
	if err := proto.Unmarshal(data, &seq); err != nil {
		return nil, fmt.Errorf("fragment %d: version sequence: %w: %w", f.GetId(), ErrCorruptFile, err)
	}
	n := f.GetPhysicalRows()
	out := make([]uint64, 0, n)
	for _, r := range seq.GetRuns() {
		span, err := appendSegment(nil, r.GetSpan(), n-uint64(len(out)))
		if err != nil {
			return nil, fmt.Errorf("fragment %d: version sequence: %w: %w", f.GetId(), ErrCorruptFile, err)
		}
		for range span {
			out = append(out, r.GetVersion())
		}
	}
	if uint64(len(out)) != n {
		return nil, fmt.Errorf("fragment %d: %w: version sequence covers %d of %d rows", f.GetId(), ErrCorruptFile, len(out), n)
	}
	return out, nil
}

// sameVersion is n copies of v.
func sameVersion(n, v uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// setVersionSequences stores per-row created-at and last-updated-at versions on f as runs of
// equal versions (each run's span is the range of its row positions).
func setVersionSequences(f *lancepb.DataFragment, created, updated []uint64) error {
	c, err := encodeVersions(created)
	if err != nil {
		return err
	}
	u, err := encodeVersions(updated)
	if err != nil {
		return err
	}
	f.CreatedAtVersionSequence = &lancepb.DataFragment_InlineCreatedAtVersions{InlineCreatedAtVersions: c}
	f.LastUpdatedAtVersionSequence = &lancepb.DataFragment_InlineLastUpdatedAtVersions{InlineLastUpdatedAtVersions: u}
	return nil
}

func encodeVersions(vs []uint64) ([]byte, error) {
	seq := &lancepb.RowDatasetVersionSequence{}
	for i := 0; i < len(vs); {
		j := i + 1
		for j < len(vs) && vs[j] == vs[i] {
			j++
		}
		seq.Runs = append(seq.Runs, &lancepb.RowDatasetVersionRun{
			Span: rangeSegment(uint64(i), uint64(j)), Version: vs[i]})
		i = j
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(seq)
	if err != nil {
		return nil, fmt.Errorf("encode version sequence: %w", err)
	}
	return b, nil
}

func rangeSegment(start, end uint64) *lancepb.U64Segment {
	return &lancepb.U64Segment{Segment: &lancepb.U64Segment_Range_{
		Range: &lancepb.U64Segment_Range{Start: start, End: end}}}
}

// minRangeRun is the shortest run of consecutive ids encoded as a Range segment; shorter
// runs go into array segments.
const minRangeRun = 8

// encodeRowIDs serializes ids as a RowIdSequence: runs of consecutive ids as Range segments,
// the rest as (sorted when ascending) arrays of offsets from their minimum.
func encodeRowIDs(ids []uint64) ([]byte, error) {
	var segs []*lancepb.U64Segment
	pending := 0 // start of ids not yet in a segment
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j-1] != ^uint64(0) && ids[j] == ids[j-1]+1 {
			j++
		}
		if j-i >= minRangeRun {
			if pending < i {
				segs = append(segs, arraySegment(ids[pending:i]))
			}
			segs = append(segs, rangeSegment(ids[i], ids[j-1]+1))
			pending = j
		}
		i = j
	}
	if pending < len(ids) {
		segs = append(segs, arraySegment(ids[pending:]))
	}
	return encodeRowIDSegments(segs)
}

func encodeRowIDSegments(segs []*lancepb.U64Segment) ([]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&lancepb.RowIdSequence{Segments: segs})
	if err != nil {
		return nil, fmt.Errorf("encode row id sequence: %w", err)
	}
	return b, nil
}

// arraySegment encodes ids as a sorted_array segment when ascending, else an array segment,
// with u16/u32 offsets from the minimum when they fit.
func arraySegment(ids []uint64) *lancepb.U64Segment {
	lo, hi, sorted := ids[0], ids[0], true
	for i, v := range ids {
		lo, hi = min(lo, v), max(hi, v)
		if i > 0 && v <= ids[i-1] {
			sorted = false
		}
	}
	arr := &lancepb.EncodedU64Array{}
	switch {
	case hi-lo <= 0xFFFF:
		b := make([]byte, 0, 2*len(ids))
		for _, v := range ids {
			b = binary.LittleEndian.AppendUint16(b, uint16(v-lo))
		}
		arr.Array = &lancepb.EncodedU64Array_U16Array_{U16Array: &lancepb.EncodedU64Array_U16Array{Base: lo, Offsets: b}}
	case hi-lo <= 0xFFFFFFFF:
		b := make([]byte, 0, 4*len(ids))
		for _, v := range ids {
			b = binary.LittleEndian.AppendUint32(b, uint32(v-lo))
		}
		arr.Array = &lancepb.EncodedU64Array_U32Array_{U32Array: &lancepb.EncodedU64Array_U32Array{Base: lo, Offsets: b}}
	default:
		b := make([]byte, 0, 8*len(ids))
		for _, v := range ids {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		arr.Array = &lancepb.EncodedU64Array_U64Array_{U64Array: &lancepb.EncodedU64Array_U64Array{Values: b}}
	}
	if sorted {
		return &lancepb.U64Segment{Segment: &lancepb.U64Segment_SortedArray{SortedArray: arr}}
	}
	return &lancepb.U64Segment{Segment: &lancepb.U64Segment_Array{Array: arr}}
}

// touchRowVersions sets the last-updated-at version of every row of frags to the commit's
// version (columns were added), keeping the created-at versions, when the dataset has
// stable row ids and the fragment has version sequences.
func touchRowVersions(b *buildState, frags []*lancepb.DataFragment) error {
	if !usesStableRowIDs(b.next) {
		return nil
	}
	for _, f := range frags {
		created, err := fragmentVersions(f, true)
		if err != nil {
			return err
		}
		if created == nil {
			continue
		}
		if err := setVersionSequences(f, created, sameVersion(f.GetPhysicalRows(), b.next.GetVersion())); err != nil {
			return err
		}
	}
	return nil
}

// carryRowIDs gives the new fragments of rewrite group g the row ids and versions of the
// live rows of its old fragments, in order, when the dataset has stable row ids.
func (o *rewriteOp) carryRowIDs(ctx context.Context, b *buildState, g RewriteGroup, frags []*lancepb.DataFragment) error {
	if !usesStableRowIDs(b.next) {
		return nil
	}
	var rows carriedRows
	versions := true
	for _, id := range g.Old {
		f := o.old[id]
		ids, err := fragmentRowIDs(f)
		if err != nil {
			return err
		}
		created, err := fragmentVersions(f, true)
		if err != nil {
			return err
		}
		updated, err := fragmentVersions(f, false)
		if err != nil {
			return err
		}
		versions = versions && created != nil && updated != nil
		dv, err := b.ds.ReadFragmentDeletions(ctx, b.base, f)
		if err != nil {
			return err
		}
		var deleted []uint32
		if dv != nil {
			deleted = dv.Offsets()
		}
		d := 0
		for off := range ids {
			for d < len(deleted) && int(deleted[d]) < off {
				d++
			}
			if d < len(deleted) && int(deleted[d]) == off {
				continue
			}
			rows.ids = append(rows.ids, ids[off])
			if versions {
				rows.created = append(rows.created, created[off])
				rows.updated = append(rows.updated, updated[off])
			}
		}
	}
	if !versions {
		rows.created, rows.updated = nil, nil
	}
	return assignCarriedRowIDs(frags, rows)
}

// carryRowIDs gives the updated rows' new fragments the ids and created-at versions of the
// rows they replace (their last-updated-at version is the commit's), when the dataset has
// stable row ids.
func (o *updateOp) carryRowIDs(b *buildState, frags []*lancepb.DataFragment) error {
	if !usesStableRowIDs(b.next) {
		return nil
	}
	if o.addrs == nil && len(o.frags) > 0 {
		return fmt.Errorf("%w (not supported yet: update without row addresses with stable row ids; use NewUpdateRows)",
			ErrUnsupportedFeature)
	}
	type decoded struct{ ids, created []uint64 }
	cache := map[uint64]decoded{}
	rows := carriedRows{}
	versions := true
	for _, addr := range o.addrs {
		id, off := addr>>32, addr&0xFFFFFFFF
		d, ok := cache[id]
		if !ok {
			f := o.dl.read[id]
			if f == nil {
				return fmt.Errorf("%w: update row address %#x: no fragment %d", ErrInvalidWrite, addr, id)
			}
			var err error
			if d.ids, err = fragmentRowIDs(f); err != nil {
				return err
			}
			if d.created, err = fragmentVersions(f, true); err != nil {
				return err
			}
			cache[id] = d
		}
		if off >= uint64(len(d.ids)) {
			return fmt.Errorf("%w: update row address %#x: offset past fragment %d's %d rows", ErrInvalidWrite, addr, id, len(d.ids))
		}
		rows.ids = append(rows.ids, d.ids[off])
		versions = versions && d.created != nil
		if versions {
			rows.created = append(rows.created, d.created[off])
		}
	}
	if versions {
		rows.updated = sameVersion(uint64(len(rows.ids)), b.next.GetVersion())
	} else {
		rows.created = nil
	}
	return assignCarriedRowIDs(frags, rows)
}
