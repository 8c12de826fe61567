package table

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// mergeOp replaces the fragment list and the schema after columns were added to every
// fragment (Lance's Merge).
type mergeOp struct {
	frags  []*lancepb.DataFragment
	fields []*lancepb.Field
	meta   map[string][]byte
}

func (o *mergeOp) Name() string { return "merge" }

// check: a merge carries the whole fragment list, so any concurrent change to fragments or
// schema forces a re-plan.
func (o *mergeOp) check(theirs *lancepb.Transaction, v uint64) error {
	switch theirs.GetOperation().(type) {
	case *lancepb.Transaction_CreateIndex_, *lancepb.Transaction_ReserveFragments_, *lancepb.Transaction_UpdateConfig_:
		return nil
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_:
		return conflict(o, theirs, v, false, "the table was replaced")
	}
	return conflict(o, theirs, v, true, "fragments or schema changed concurrently")
}

func (o *mergeOp) build(_ context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: merge: %w", b.ds.describe(), ErrVersionNotFound)
	}
	b.next.Fragments = make([]*lancepb.DataFragment, len(o.frags))
	for i, f := range o.frags {
		b.next.Fragments[i] = proto.Clone(f).(*lancepb.DataFragment)
	}
	if err := touchRowVersions(b, b.next.Fragments); err != nil {
		return fmt.Errorf("%s: merge: %w", b.ds.describe(), err)
	}
	b.next.Fields, b.next.SchemaMetadata = o.fields, o.meta
	b.txn.Operation = &lancepb.Transaction_Merge_{Merge: &lancepb.Transaction_Merge{
		Fragments: o.frags, Schema: o.fields, SchemaMetadata: o.meta}}
	return nil
}

// ColumnFiller returns the values of the new columns for every physical row of a fragment
// (deleted rows included, in row-offset order), as batches whose columns are the new
// columns. The rows must add up to physicalRows. AddColumns releases the batches.
type ColumnFiller func(ctx context.Context, fragmentID, physicalRows uint64) ([]arrow.RecordBatch, error)

// AddColumns adds the columns of cols to the table as of readVersion: for every fragment it
// writes one new data file with the new columns, row-aligned with the fragment, and commits
// a Merge. New fields get ids after the largest existing one.
func (d *Dataset) AddColumns(ctx context.Context, readVersion uint64, cols *arrow.Schema,
	fill ColumnFiller, opts *WriteOptions) (*Manifest, error) {
	read, err := d.Checkout(ctx, readVersion)
	if err != nil {
		return nil, err
	}
	old, v, err := writeSchema(read, "merge")
	if err != nil {
		return nil, fmt.Errorf("%s: add columns: %w", d.describe(), err)
	}
	add, err := newColumnsSchema(old, read.Fields(), cols)
	if err != nil {
		return nil, fmt.Errorf("%s: add columns: %w", d.describe(), err)
	}
	var frags []*lancepb.DataFragment
	for _, f := range read.Fragments() {
		nf, err := d.addColumnsTo(ctx, f, add, v, fill, opts)
		if err != nil {
			return nil, err
		}
		frags = append(frags, nf)
	}
	full := &schema.Schema{Fields: append(append([]*schema.Field{}, old.Fields...), add.Fields...)}
	fields, err := full.ToProto()
	if err != nil {
		return nil, fmt.Errorf("%s: add columns: %w", d.describe(), err)
	}
	op := &mergeOp{frags: frags, fields: fields, meta: read.Proto.GetSchemaMetadata()}
	return d.Commit(ctx, readVersion, op, nil)
}

// newColumnsSchema is the Lance schema of the added columns, with fresh field ids.
func newColumnsSchema(old *schema.Schema, fields []*lancepb.Field, cols *arrow.Schema) (*schema.Schema, error) {
	maxID := int32(-1)
	for _, f := range fields {
		maxID = max(maxID, f.GetId())
	}
	for _, c := range cols.Fields() {
		for _, f := range old.Fields {
			if f.Name == c.Name {
				return nil, fmt.Errorf("%w: column %q already exists", ErrInvalidWrite, c.Name)
			}
		}
	}
	if cols.NumFields() == 0 {
		return nil, fmt.Errorf("%w: no columns to add", ErrInvalidWrite)
	}
	add, err := schema.FromArrow(cols, maxID+1)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidWrite, err)
	}
	return add, nil
}

// addColumnsTo writes the new columns of fragment f as one data file and returns f with
// that file added.
func (d *Dataset) addColumnsTo(ctx context.Context, f *lancepb.DataFragment, add *schema.Schema,
	v file.Version, fill ColumnFiller, opts *WriteOptions) (*lancepb.DataFragment, error) {
	n := f.GetPhysicalRows()
	if n == 0 {
		return nil, fmt.Errorf("%s: add columns: fragment %d does not record its row count: not supported yet", d.describe(), f.GetId())
	}
	batches, err := fill(ctx, f.GetId(), n)
	if err != nil {
		return nil, fmt.Errorf("%s: add columns to fragment %d: %w", d.describe(), f.GetId(), err)
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var got uint64
	for _, b := range batches {
		got += uint64(b.NumRows())
	}
	if got != n {
		return nil, fmt.Errorf("%s: add columns to fragment %d: %w: got %d rows, the fragment has %d",
			d.describe(), f.GetId(), ErrInvalidWrite, got, n)
	}
	wo := WriteOptions{MaxRowsPerFile: math.MaxInt}
	if opts != nil {
		wo.Allocator = opts.Allocator
	}
	written, err := d.WriteFragments(ctx, add, v, batches, &wo)
	if err != nil {
		return nil, err
	}
	nf := proto.Clone(f).(*lancepb.DataFragment)
	for _, w := range written {
		nf.Files = append(nf.Files, w.Files...)
	}
	return nf, nil
}
