package table

import (
	"context"
	"fmt"
	"maps"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/schema"
)

// appendOp adds new fragments (Lance's Append).
type appendOp struct{ frags []*lancepb.DataFragment }

// NewAppend is the operation that adds fragments written by WriteFragments.
func NewAppend(frags []*lancepb.DataFragment) Operation { return &appendOp{frags: frags} }

func (o *appendOp) Name() string { return "append" }

func (o *appendOp) check(theirs *lancepb.Transaction, v uint64) error {
	switch theirs.GetOperation().(type) {
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_, *lancepb.Transaction_UpdateMemWalState_:
		return conflict(o, theirs, v, false, "the table was replaced")
	}
	return nil
}

func (o *appendOp) build(_ context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: append: %w", b.ds.describe(), ErrVersionNotFound)
	}
	if err := checkFileVersions(o.frags, b.base.DataFormatVersion()); err != nil {
		return fmt.Errorf("%s: append: %w", b.ds.describe(), err)
	}
	frags := assignIDs(b, o.frags)
	if err := assignNewRowIDs(b, frags); err != nil {
		return fmt.Errorf("%s: append: %w", b.ds.describe(), err)
	}
	b.next.Fragments = append(b.next.Fragments, frags...)
	b.txn.Operation = &lancepb.Transaction_Append_{Append: &lancepb.Transaction_Append{Fragments: unassigned(o.frags)}}
	return nil
}

// assignIDs returns copies of frags with consecutive ids after the high-water mark.
func assignIDs(b *buildState, frags []*lancepb.DataFragment) []*lancepb.DataFragment {
	id := b.nextFragmentID()
	out := make([]*lancepb.DataFragment, len(frags))
	for i, f := range frags {
		out[i] = proto.Clone(f).(*lancepb.DataFragment)
		out[i].Id = id
		id++
	}
	return out
}

// unassigned returns copies of frags with id 0, as transactions record new fragments.
func unassigned(frags []*lancepb.DataFragment) []*lancepb.DataFragment {
	out := make([]*lancepb.DataFragment, len(frags))
	for i, f := range frags {
		out[i] = proto.Clone(f).(*lancepb.DataFragment)
		out[i].Id = 0
	}
	return out
}

// OverwriteSpec is the new content of a table for NewOverwrite.
type OverwriteSpec struct {
	Schema     *schema.Schema          // the new schema (field ids as in the fragments)
	Fragments  []*lancepb.DataFragment // written by WriteFragments with Schema
	DataFormat string                  // "2.0", "2.1", "2.2"; "" keeps the dataset's
	Config     map[string]string       // config keys to set (upserted into the existing config)
	// StableRowIDs creates the table with stable row ids (only for a new table; an
	// existing table keeps its own choice, as in Lance).
	StableRowIDs bool
}

// overwriteOp replaces schema and fragments (Lance's Overwrite; also how tables are created).
type overwriteOp struct {
	spec   OverwriteSpec
	fields []*lancepb.Field
	meta   map[string][]byte
}

// NewOverwrite is the operation that creates a table or replaces all of its rows and its
// schema. Config, table metadata and the naming scheme of an existing table are kept;
// indices are dropped.
func NewOverwrite(spec OverwriteSpec) (Operation, error) {
	fields, err := spec.Schema.ToProto()
	if err != nil {
		return nil, fmt.Errorf("overwrite: schema: %w", err)
	}
	var meta map[string][]byte
	if len(spec.Schema.Metadata) > 0 {
		meta = make(map[string][]byte, len(spec.Schema.Metadata))
		for k, v := range spec.Schema.Metadata {
			meta[k] = []byte(v)
		}
	}
	return &overwriteOp{spec: spec, fields: fields, meta: meta}, nil
}

func (o *overwriteOp) Name() string { return "overwrite" }

func (o *overwriteOp) check(theirs *lancepb.Transaction, v uint64) error {
	var keys map[string]string
	switch t := theirs.GetOperation().(type) {
	case *lancepb.Transaction_UpdateMemWalState_:
		return conflict(o, theirs, v, false, "mem wal state changed")
	case *lancepb.Transaction_Overwrite_:
		keys = t.Overwrite.GetConfigUpsertValues()
	case *lancepb.Transaction_UpdateConfig_:
		for _, e := range t.UpdateConfig.GetConfigUpdates().GetUpdateEntries() {
			if _, ok := o.spec.Config[e.GetKey()]; ok {
				return conflict(o, theirs, v, false, fmt.Sprintf("both change config key %q", e.GetKey()))
			}
		}
	}
	for k := range keys {
		if _, ok := o.spec.Config[k]; ok {
			return conflict(o, theirs, v, false, fmt.Sprintf("both change config key %q", k))
		}
	}
	return nil
}

func (o *overwriteOp) build(_ context.Context, b *buildState) error {
	m := b.next
	df := o.spec.DataFormat
	if df == "" && b.base != nil {
		df = b.base.DataFormatVersion()
	}
	if _, err := FileVersion(df); err != nil {
		return fmt.Errorf("%s: overwrite: %w", b.ds.describe(), err)
	}
	if err := checkFileVersions(o.spec.Fragments, df); err != nil {
		return fmt.Errorf("%s: overwrite: %w", b.ds.describe(), err)
	}
	m.DataFormat = &lancepb.Manifest_DataStorageFormat{FileFormat: "lance", Version: df}
	m.Fields, m.SchemaMetadata = o.fields, o.meta
	m.Fragments, m.MaxFragmentId = nil, nil
	m.Fragments = assignIDs(b, o.spec.Fragments)
	if b.base == nil && o.spec.StableRowIDs {
		m.ReaderFeatureFlags |= FlagStableRowIDs
		m.WriterFeatureFlags |= FlagStableRowIDs
	}
	if err := assignNewRowIDs(b, m.Fragments); err != nil {
		return fmt.Errorf("%s: overwrite: %w", b.ds.describe(), err)
	}
	b.indices = nil
	if len(o.spec.Config) > 0 {
		if m.Config == nil {
			m.Config = map[string]string{}
		}
		maps.Copy(m.Config, o.spec.Config)
	}
	b.txn.Operation = &lancepb.Transaction_Overwrite_{Overwrite: &lancepb.Transaction_Overwrite{
		Fragments: unassigned(o.spec.Fragments), Schema: o.fields, SchemaMetadata: o.meta,
		ConfigUpsertValues: o.spec.Config,
	}}
	return nil
}

// CreateMode says what Create does when the dataset already exists.
type CreateMode int

const (
	// CreateOnly fails with ErrDatasetExists if the dataset has a version.
	CreateOnly CreateMode = iota
	// CreateOrOverwrite replaces an existing dataset's rows and schema (a new version).
	CreateOrOverwrite
)

// CreateOptions tunes Create. The zero value creates a 2.2 dataset with V2 manifest names.
type CreateOptions struct {
	Mode       CreateMode
	DataFormat file.Version // default file.V2_2 (pylance 14's default)
	Config     map[string]string
	// StableRowIDs creates a new dataset with stable row ids (pylance's
	// enable_stable_row_ids=True); ignored when an existing dataset is overwritten.
	StableRowIDs bool
	Write        WriteOptions
	Commit       CommitOptions
}

// Create writes batches as a new dataset with Arrow schema as (field ids 0, 1, ... in
// pre-order), or overwrites an existing one (CreateOrOverwrite; the data storage version
// then defaults to the existing one).
func (d *Dataset) Create(ctx context.Context, as *arrow.Schema, batches []arrow.RecordBatch, opts *CreateOptions) (*Manifest, error) {
	if opts == nil {
		opts = &CreateOptions{}
	}
	var read uint64
	v := opts.DataFormat
	cur, err := d.Latest(ctx)
	switch {
	case err == nil && opts.Mode == CreateOnly:
		return nil, fmt.Errorf("%s: create: %w (version %d)", d.describe(), ErrDatasetExists, cur.Version())
	case err == nil:
		read = cur.Version()
		if v == 0 { // an overwrite keeps the table's data storage version by default
			if v, err = FileVersion(cur.DataFormatVersion()); err != nil {
				return nil, fmt.Errorf("%s: overwrite: %w", d.describe(), err)
			}
		}
	case !isNotFound(err):
		return nil, err
	}
	sc, err := schema.FromArrow(as, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: create: %w: %w", d.describe(), ErrInvalidWrite, err)
	}
	if md := as.Metadata(); md.Len() > 0 {
		sc.Metadata = make(map[string]string, md.Len())
		for i, k := range md.Keys() {
			sc.Metadata[k] = md.Values()[i]
		}
	}
	if v == 0 {
		v = file.V2_2
	}
	frags, err := d.WriteFragments(ctx, sc, v, batches, &opts.Write)
	if err != nil {
		return nil, err
	}
	op, err := NewOverwrite(OverwriteSpec{Schema: sc, Fragments: frags, DataFormat: v.String(), Config: opts.Config,
		StableRowIDs: opts.StableRowIDs})
	if err != nil {
		return nil, err
	}
	if read == 0 && opts.Mode == CreateOnly {
		op = &createOnlyOp{op.(*overwriteOp)}
	}
	return d.Commit(ctx, read, op, &opts.Commit)
}

// createOnlyOp is an overwrite that fails if anyone else created the dataset first.
type createOnlyOp struct{ *overwriteOp }

func (o *createOnlyOp) check(theirs *lancepb.Transaction, v uint64) error {
	return conflict(o, theirs, v, false, "the dataset was created concurrently")
}

// Append writes batches as new fragments of the latest version and commits them. The
// batches' columns must be the table's top-level columns, in order.
func (d *Dataset) Append(ctx context.Context, batches []arrow.RecordBatch, opts *WriteOptions) (*Manifest, error) {
	m, err := d.Latest(ctx)
	if err != nil {
		return nil, err
	}
	sc, v, err := writeSchema(m, "append")
	if err != nil {
		return nil, fmt.Errorf("%s: append: %w", d.describe(), err)
	}
	frags, err := d.WriteFragments(ctx, sc, v, batches, opts)
	if err != nil {
		return nil, err
	}
	return d.Commit(ctx, m.Version(), NewAppend(frags), nil)
}

// writeSchema is the schema and file version new data files of m's table are written with.
func writeSchema(m *Manifest, op string) (*schema.Schema, file.Version, error) {
	if err := checkWriterFeatures(m, op); err != nil {
		return nil, 0, err
	}
	v, err := FileVersion(m.DataFormatVersion())
	if err != nil {
		return nil, 0, err
	}
	sc, err := schema.FromProto(m.Fields())
	if err != nil {
		return nil, 0, fmt.Errorf("version %d: schema: %w", m.Version(), err)
	}
	return sc, v, nil
}
