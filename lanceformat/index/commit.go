package index

import (
	"context"
	"fmt"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/table"
)

// Committing index changes: each is one CreateIndex transaction (spec §3.6), as pylance's
// create_scalar_index, optimize_indices and drop_index commit them.

// CommitSegment commits md (from Build or BuildFragments on read version m) as a new
// segment of its index: a new index, or a delta segment of an existing one when an index of
// that name exists. It returns the committed manifest.
func CommitSegment(ctx context.Context, ds *table.Dataset, m *table.Manifest, md *lancepb.IndexMetadata,
	opts *table.CommitOptions) (*table.Manifest, error) {
	op, err := table.NewCreateIndex([]*lancepb.IndexMetadata{md}, nil)
	if err != nil {
		return nil, fmt.Errorf("commit index %q: %w", md.GetName(), err)
	}
	next, err := ds.Commit(ctx, m.Version(), op, opts)
	if err != nil {
		return nil, fmt.Errorf("commit index %q: %w", md.GetName(), err)
	}
	return next, nil
}

// Drop commits the removal of every segment of index name as listed in read version m. It
// fails with an error wrapping ErrNoIndex when m has no index of that name.
func Drop(ctx context.Context, ds *table.Dataset, m *table.Manifest, name string,
	opts *table.CommitOptions) (*table.Manifest, error) {
	var removed []*lancepb.IndexMetadata
	for _, ix := range m.Indices {
		if ix.GetName() == name {
			removed = append(removed, ix)
		}
	}
	if len(removed) == 0 {
		return nil, fmt.Errorf("drop index %q (version %d): %w", name, m.Version(), ErrNoIndex)
	}
	op, err := table.NewCreateIndex(nil, removed)
	if err != nil {
		return nil, fmt.Errorf("drop index %q: %w", name, err)
	}
	next, err := ds.Commit(ctx, m.Version(), op, opts)
	if err != nil {
		return nil, fmt.Errorf("drop index %q: %w", name, err)
	}
	return next, nil
}

// HasIndex reports whether manifest m has a segment of an index called name.
func HasIndex(m *table.Manifest, name string) bool {
	for _, ix := range m.Indices {
		if ix.GetName() == name {
			return true
		}
	}
	return false
}
