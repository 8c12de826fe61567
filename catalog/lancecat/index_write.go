package lancecat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/table"
)

// Index DDL (catalog.Indexer). Every call commits one CreateIndex transaction, as pylance's
// create_scalar_index, drop_index and optimize_indices do, so pylance lists and uses the
// indexes flightd builds and the other way round:
//
//	CreateIndex:   one segment over every live row        new_indices=[seg]
//	DropIndex:     every segment of the name               removed_indices=[segs...]
//	OptimizeIndex: one delta segment over the fragments    new_indices=[delta]
//	               no segment of the name covers yet       (optimize_indices with
//	                                                        num_indices_to_merge=0)
//
// Index files are Lance files (version 2.0, which every Lance reader accepts) under
// _indices/{uuid}/. Files of a failed or dropped index stay until Cleanup removes them.

var _ catalog.Indexer = (*Catalog)(nil)

// sqlIndexTypes maps the SQL spellings of index types (upper case, underscores removed) to
// the types this catalog can build.
var sqlIndexTypes = map[string]index.Type{
	"BTREE": index.TypeBTree, "BITMAP": index.TypeBitmap, "LABELLIST": index.TypeLabelList,
	"ZONEMAP": index.TypeZoneMap, "BLOOMFILTER": index.TypeBloomFilter,
}

// parseIndexType resolves an SQL index type name ("" means BTREE).
func parseIndexType(s string) (index.Type, error) {
	if s == "" {
		return index.TypeBTree, nil
	}
	t, ok := sqlIndexTypes[strings.ReplaceAll(strings.ToUpper(s), "_", "")]
	if !ok {
		return index.TypeUnknown, fmt.Errorf("index type %q: %w (supported: BTREE, BITMAP, LABEL_LIST, ZONEMAP, BLOOMFILTER)",
			s, catalog.ErrNotSupported)
	}
	return t, nil
}

// latestWritable opens the latest version of table name and checks it can be committed on.
func (c *Catalog) latestWritable(ctx context.Context, name, what string) (*table.Dataset, *table.Manifest, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return nil, nil, err
	}
	m, err := ds.Latest(ctx)
	if err != nil {
		return nil, nil, writeError(ctx, ds, what, name, err)
	}
	if err := table.CheckWritable(m); err != nil {
		return nil, nil, fmt.Errorf("%s table %q: %w", what, name, classify(err))
	}
	return ds, m, nil
}

// CreateIndex implements catalog.Indexer.
func (c *Catalog) CreateIndex(ctx context.Context, name string, spec catalog.IndexSpec) (catalog.IndexChange, error) {
	typ, err := parseIndexType(spec.Type)
	if err != nil {
		return catalog.IndexChange{}, fmt.Errorf("create index %q on %q: %w", spec.Name, name, err)
	}
	ds, m, err := c.latestWritable(ctx, name, "create index on")
	if err != nil {
		return catalog.IndexChange{}, err
	}
	if index.HasIndex(m, spec.Name) {
		return catalog.IndexChange{Version: m.Version()}, fmt.Errorf("create index %q on table %q: %w",
			spec.Name, name, catalog.ErrIndexExists)
	}
	fid, ok := topLevelField(m, spec.Column)
	if !ok {
		return catalog.IndexChange{}, fmt.Errorf("create index %q on table %q: no column %q: %w",
			spec.Name, name, spec.Column, table.ErrInvalidWrite)
	}
	return c.buildAndCommit(ctx, ds, m, name, spec.Name, fid, typ, nil, spec.Allocator)
}

// buildAndCommit builds a segment of index ixName over frags (nil: all) of m and commits it.
func (c *Catalog) buildAndCommit(ctx context.Context, ds *table.Dataset, m *table.Manifest, tableName, ixName string,
	fid int32, typ index.Type, frags []uint64, mem memory.Allocator) (catalog.IndexChange, error) {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	built, md, err := index.BuildFragments(ctx, ds, m, ixName, fid, typ, frags, nil, mem)
	if err != nil {
		if errors.Is(err, index.ErrNotSupported) {
			err = fmt.Errorf("%w: %w", catalog.ErrNotSupported, err)
		}
		return catalog.IndexChange{}, fmt.Errorf("index %q on table %q: %w", ixName, tableName, err)
	}
	next, err := index.CommitSegment(ctx, ds, m, md, nil)
	if err != nil {
		return catalog.IndexChange{}, writeError(ctx, ds, "index "+ixName+" on", tableName, err)
	}
	return catalog.IndexChange{Version: next.Version(), Rows: built.Rows, Committed: true}, nil
}

// DropIndex implements catalog.Indexer.
func (c *Catalog) DropIndex(ctx context.Context, name, ixName string) (catalog.IndexChange, error) {
	ds, m, err := c.latestWritable(ctx, name, "drop index on")
	if err != nil {
		return catalog.IndexChange{}, err
	}
	if !index.HasIndex(m, ixName) {
		return catalog.IndexChange{Version: m.Version()}, fmt.Errorf("drop index %q on table %q: %w",
			ixName, name, catalog.ErrNoSuchIndex)
	}
	next, err := index.Drop(ctx, ds, m, ixName, nil)
	if err != nil {
		return catalog.IndexChange{}, writeError(ctx, ds, "drop index "+ixName+" on", name, err)
	}
	return catalog.IndexChange{Version: next.Version(), Committed: true}, nil
}

// OptimizeIndex implements catalog.Indexer: a delta segment over the live fragments that no
// segment of the index covers.
func (c *Catalog) OptimizeIndex(ctx context.Context, name, ixName string, mem memory.Allocator) (catalog.IndexChange, error) {
	ds, m, err := c.latestWritable(ctx, name, "optimize index on")
	if err != nil {
		return catalog.IndexChange{}, err
	}
	infos, err := index.List(ctx, ds, m)
	if err != nil {
		return catalog.IndexChange{}, fmt.Errorf("optimize index %q on table %q: %w", ixName, name, err)
	}
	i := slices.IndexFunc(infos, func(in index.Info) bool { return in.Name == ixName })
	if i < 0 {
		return catalog.IndexChange{Version: m.Version()}, fmt.Errorf("optimize index %q on table %q: %w",
			ixName, name, catalog.ErrNoSuchIndex)
	}
	info := infos[i]
	if _, ok := sqlIndexTypes[strings.ToUpper(info.Type.String())]; !ok || len(info.Fields) != 1 {
		return catalog.IndexChange{}, fmt.Errorf("optimize index %q on table %q: %w: optimizing %s indexes",
			ixName, name, catalog.ErrNotSupported, info.Type)
	}
	for _, s := range info.Segments {
		if !s.FragmentsKnown {
			return catalog.IndexChange{}, fmt.Errorf("optimize index %q on table %q: %w: segments without a fragment bitmap",
				ixName, name, catalog.ErrNotSupported)
		}
	}
	covered := info.Covered()
	var todo []uint64
	for _, f := range m.Fragments() {
		if _, ok := slices.BinarySearch(covered, uint32(f.GetId())); !ok {
			todo = append(todo, f.GetId())
		}
	}
	if len(todo) == 0 {
		return catalog.IndexChange{Version: m.Version()}, nil
	}
	return c.buildAndCommit(ctx, ds, m, name, ixName, info.Fields[0], info.Type, todo, mem)
}

// tableScanLimit bounds the tables TablesWithIndex reads at once.
const tableScanLimit = 8

// TablesWithIndex implements catalog.Indexer.
func (c *Catalog) TablesWithIndex(ctx context.Context, ixName string) ([]string, error) {
	names, err := c.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	found := make([]bool, len(names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(tableScanLimit)
	for i, n := range names {
		g.Go(func() error {
			m, err := c.dataset(n).Latest(gctx)
			if errors.Is(err, table.ErrVersionNotFound) {
				return nil // dropped meanwhile
			}
			if err != nil {
				return fmt.Errorf("find index %q: table %q: %w", ixName, n, err)
			}
			found[i] = index.HasIndex(m, ixName)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []string
	for i, n := range names {
		if found[i] {
			out = append(out, n)
		}
	}
	return out, nil
}

// topLevelField returns the id of the top-level field called name.
func topLevelField(m *table.Manifest, name string) (int32, bool) {
	for _, f := range m.Fields() {
		if f.GetParentId() == -1 && f.GetName() == name {
			return f.GetId(), true
		}
	}
	return 0, false
}
