package index

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// Column is the training data of an index: the live values of one column and their row
// addresses, in fragment and offset order.
type Column struct {
	Values arrow.Array
	Addrs  []uint64
	// Fragments are the fragments read, ascending: the index's coverage.
	Fragments []uint32
}

// Release releases the values.
func (c *Column) Release() {
	if c.Values != nil {
		c.Values.Release()
		c.Values = nil
	}
}

// ReadColumn reads field fieldID of every fragment of m, without deleted rows.
func ReadColumn(ctx context.Context, ds *table.Dataset, m *table.Manifest, fieldID int32,
	mem memory.Allocator) (*Column, error) {
	return ReadFragmentsColumn(ctx, ds, m, fieldID, nil, mem)
}

// ReadFragmentsColumn reads field fieldID of the fragments of m whose ids are in frags (all
// fragments when frags is nil), without deleted rows.
func ReadFragmentsColumn(ctx context.Context, ds *table.Dataset, m *table.Manifest, fieldID int32,
	frags []uint64, mem memory.Allocator) (*Column, error) {
	col := &Column{}
	var parts []arrow.Array
	defer func() { releaseAll(parts) }()
	ids := subtree(m.Fields(), fieldID)
	for _, frag := range m.Fragments() {
		if frags != nil && !slices.Contains(frags, frag.GetId()) {
			continue
		}
		arr, addrs, err := readFragmentColumn(ctx, ds, frag, fieldID, ids, mem)
		if err != nil {
			return nil, fmt.Errorf("read field %d of fragment %d: %w", fieldID, frag.GetId(), err)
		}
		parts = append(parts, arr)
		col.Addrs = append(col.Addrs, addrs...)
		col.Fragments = append(col.Fragments, uint32(frag.GetId()))
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("read field %d: no fragments to read: %w", fieldID, ErrNoData)
	}
	all, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, fmt.Errorf("read field %d: %w", fieldID, err)
	}
	col.Values = all
	slices.Sort(col.Fragments)
	return col, nil
}

// subtree returns the id of a field and of all its descendants (2.1+ data files list only
// leaf fields).
func subtree(fields []*lancepb.Field, id int32) []int32 {
	out := []int32{id}
	for changed := true; changed; {
		changed = false
		for _, f := range fields {
			if slices.Contains(out, f.GetParentId()) && !slices.Contains(out, f.GetId()) {
				out, changed = append(out, f.GetId()), true
			}
		}
	}
	return out
}

// readFragmentColumn reads one fragment's live values of a field and their addresses.
func readFragmentColumn(ctx context.Context, ds *table.Dataset, frag *lancepb.DataFragment, fieldID int32,
	ids []int32, mem memory.Allocator) (arrow.Array, []uint64, error) {
	var df *lancepb.DataFile
	for _, d := range frag.GetFiles() {
		if slices.ContainsFunc(d.GetFields(), func(id int32) bool { return slices.Contains(ids, id) }) {
			df = d
		}
	}
	if df == nil {
		return nil, nil, errors.New("no data file holds the field")
	}
	r, err := file.Open(ctx, ds.Store(), ds.Path("data/"+df.GetPath()))
	if err != nil {
		return nil, nil, err
	}
	arrs, err := r.ReadRange(ctx, []int32{fieldID}, 0, r.NumRows(), mem)
	if err != nil {
		return nil, nil, err
	}
	dv, err := ds.ReadDeletionVector(ctx, frag)
	if err != nil {
		arrs[0].Release()
		return nil, nil, err
	}
	base := uint64(frag.GetId()) << 32
	var keep []int64
	var addrs []uint64
	for i := range r.NumRows() {
		if !dv.Contains(i) {
			keep = append(keep, int64(i))
			addrs = append(addrs, base|i)
		}
	}
	if len(keep) == int(r.NumRows()) {
		return arrs[0], addrs, nil
	}
	defer arrs[0].Release()
	out, err := takeRows(ctx, arrs[0], keep, mem)
	return out, addrs, err
}

// takeRows gathers arr[idx...] into a new array.
func takeRows(ctx context.Context, arr arrow.Array, idx []int64, mem memory.Allocator) (arrow.Array, error) {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(idx, nil)
	ia := b.NewInt64Array()
	defer ia.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), arr, ia)
	if err != nil {
		return nil, fmt.Errorf("take %d rows of %s: %w", len(idx), arr.DataType(), err)
	}
	return out, nil
}

// takeIndices gathers arr at the (nullable) Int64 indices idx; null indices give nulls.
func takeIndices(ctx context.Context, arr arrow.Array, idx arrow.Array, mem memory.Allocator) (arrow.Array, error) {
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), arr, idx)
	if err != nil {
		return nil, fmt.Errorf("take %d rows of %s: %w", idx.Len(), arr.DataType(), err)
	}
	return out, nil
}
