package table

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
)

// projectOp changes the schema without touching data (Lance's Project): dropping and
// renaming columns. The change is a function of the base schema, so it is re-applied on a
// newer base after compatible concurrent commits.
type projectOp struct {
	what   string
	change func(fields []*lancepb.Field) ([]*lancepb.Field, error)
}

func (o *projectOp) Name() string { return "project" }

func (o *projectOp) check(theirs *lancepb.Transaction, v uint64) error {
	switch theirs.GetOperation().(type) {
	case *lancepb.Transaction_Overwrite_, *lancepb.Transaction_Restore_:
		return conflict(o, theirs, v, false, "the table was replaced")
	case *lancepb.Transaction_Merge_, *lancepb.Transaction_Project_:
		return conflict(o, theirs, v, true, "the schema changed concurrently")
	}
	return nil
}

func (o *projectOp) build(_ context.Context, b *buildState) error {
	if b.base == nil {
		return fmt.Errorf("%s: %s: %w", b.ds.describe(), o.what, ErrVersionNotFound)
	}
	fields, err := o.change(b.base.Fields())
	if err != nil {
		return fmt.Errorf("%s: %s: %w", b.ds.describe(), o.what, err)
	}
	b.next.Fields = fields
	live := map[int32]bool{}
	for _, f := range fields {
		live[f.GetId()] = true
	}
	// Data files none of whose fields are left are dropped from their fragments; the
	// others keep their (now partly unused) field lists, as Lance does.
	for _, f := range b.next.Fragments {
		f.Files = slices.DeleteFunc(f.Files, func(df *lancepb.DataFile) bool {
			return !slices.ContainsFunc(df.GetFields(), func(id int32) bool { return live[id] })
		})
	}
	b.indices = slices.DeleteFunc(b.indices, func(ix *lancepb.IndexMetadata) bool {
		return !slices.ContainsFunc(ix.GetFields(), func(id int32) bool { return live[id] })
	})
	b.txn.Operation = &lancepb.Transaction_Project_{Project: &lancepb.Transaction_Project{Schema: fields}}
	return nil
}

// NewDropColumns is the operation that drops top-level columns (and their children) by
// name. Dropping nested fields is not supported yet.
func NewDropColumns(names ...string) Operation {
	return &projectOp{what: "drop columns", change: func(fields []*lancepb.Field) ([]*lancepb.Field, error) {
		drop := map[int32]bool{}
		top := 0
		for _, n := range names {
			f := topLevel(fields, n)
			if f == nil {
				return nil, fmt.Errorf("%w: no column %q", ErrInvalidWrite, n)
			}
			drop[f.GetId()] = true
		}
		var out []*lancepb.Field
		for _, f := range fields { // pre-order: parents come before children
			if drop[f.GetId()] || drop[f.GetParentId()] {
				drop[f.GetId()] = true
				continue
			}
			if f.GetParentId() == -1 {
				top++
			}
			out = append(out, proto.Clone(f).(*lancepb.Field))
		}
		if top == 0 {
			return nil, fmt.Errorf("%w: cannot drop every column", ErrInvalidWrite)
		}
		return out, nil
	}}
}

// NewRenameColumn is the operation that renames top-level column from to to.
func NewRenameColumn(from, to string) Operation {
	return &projectOp{what: "rename column", change: func(fields []*lancepb.Field) ([]*lancepb.Field, error) {
		f := topLevel(fields, from)
		if f == nil {
			return nil, fmt.Errorf("%w: no column %q", ErrInvalidWrite, from)
		}
		if to == "" || topLevel(fields, to) != nil {
			return nil, fmt.Errorf("%w: cannot rename %q to %q", ErrInvalidWrite, from, to)
		}
		out := make([]*lancepb.Field, len(fields))
		for i, g := range fields {
			out[i] = proto.Clone(g).(*lancepb.Field)
			if g.GetId() == f.GetId() {
				out[i].Name = to
			}
		}
		return out, nil
	}}
}

func topLevel(fields []*lancepb.Field, name string) *lancepb.Field {
	for _, f := range fields {
		if f.GetParentId() == -1 && f.GetName() == name {
			return f
		}
	}
	return nil
}
