package sqllogic

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
)

// MemStore is a versioned in-memory catalog: each table change the oracle reports becomes
// a new version, which is a catalog/memcat table of all the version's batches (an append
// keeps the earlier batches, so each one is a fragment, as in Lance). Versions are numbered
// from 1 as in Lance; only version numbers can be asked for (not tags or timestamps).
// It is safe for concurrent use.
type MemStore struct {
	morselRows int64
	mu         sync.RWMutex
	tables     map[string][]*memVersion // versions[i] is version i+1
}

type memVersion struct {
	cat     *memcat.Catalog
	batches []arrow.RecordBatch // retained by the store
}

var _ catalog.Catalog = (*MemStore)(nil)

// NewMemStore returns an empty store whose tables split into morsels of at most
// morselRows rows (0 means memcat's default).
func NewMemStore(morselRows int64) *MemStore {
	return &MemStore{morselRows: morselRows, tables: map[string][]*memVersion{}}
}

// Apply records one change as a new version. It does not take ownership of the change's
// batches.
func (s *MemStore) Apply(_ context.Context, ch Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch.Kind == ChangeDrop {
		releaseVersions(s.tables[ch.Table])
		delete(s.tables, ch.Table)
		return nil
	}
	versions := s.tables[ch.Table]
	if ch.Kind == ChangeCreate {
		releaseVersions(versions)
		versions = nil
	}
	if ch.Version != uint64(len(versions)+1) {
		return fmt.Errorf("memstore: %s %s: version %d follows version %d", ch.Kind, ch.Table, ch.Version, len(versions))
	}
	var batches []arrow.RecordBatch
	switch ch.Kind {
	case ChangeAppend:
		if len(versions) == 0 {
			return fmt.Errorf("memstore: append to %s: no such table", ch.Table)
		}
		batches = slices.Clone(versions[len(versions)-1].batches)
	case ChangeCreate, ChangeOverwrite:
	default:
		return fmt.Errorf("memstore: %s: unknown change %q", ch.Table, ch.Kind)
	}
	batches = append(batches, ch.Batches...)
	opts := []memcat.Option{}
	if s.morselRows > 0 {
		opts = append(opts, memcat.WithMorselRows(s.morselRows))
	}
	cat := memcat.New(opts...)
	if err := cat.AddTable(ch.Table, ch.Schema, batches...); err != nil {
		return fmt.Errorf("memstore: %s %s: %w", ch.Kind, ch.Table, err)
	}
	for _, b := range batches {
		b.Retain()
	}
	s.tables[ch.Table] = append(versions, &memVersion{cat: cat, batches: batches})
	return nil
}

func releaseVersions(vs []*memVersion) {
	for _, v := range vs {
		v.cat.Release()
		releaseBatches(v.batches)
	}
}

// Release releases every batch the store holds; the store is empty afterwards.
func (s *MemStore) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, vs := range s.tables {
		releaseVersions(vs)
	}
	s.tables = map[string][]*memVersion{}
}

// ListTables implements catalog.Catalog.
func (s *MemStore) ListTables(context.Context) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.tables))
	for n := range s.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// LoadTable implements catalog.Catalog.
func (s *MemStore) LoadTable(ctx context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	s.mu.RLock()
	versions := s.tables[name]
	s.mu.RUnlock()
	if len(versions) == 0 {
		return nil, fmt.Errorf("memstore: load table %s: %w", name, catalog.ErrNoSuchTable)
	}
	v := uint64(len(versions))
	switch {
	case at.Tag != "" || !at.Timestamp.IsZero():
		return nil, fmt.Errorf("memstore: load table %s at %s: not supported yet: tags and timestamps in the in-memory store: %w", name, at, catalog.ErrNoSuchVersion)
	case at.Version != 0:
		if at.Version > v {
			return nil, fmt.Errorf("memstore: load table %s at %s: %w", name, at, catalog.ErrNoSuchVersion)
		}
		v = at.Version
	}
	t, err := versions[v-1].cat.LoadTable(ctx, name, catalog.VersionRef{})
	if err != nil {
		return nil, fmt.Errorf("memstore: load table %s version %d: %w", name, v, err)
	}
	return versionedTable{Table: t, version: v}, nil
}

// versionedTable is a memcat table that reports its store version.
type versionedTable struct {
	catalog.Table
	version uint64
}

// Version implements catalog.Table.
func (t versionedTable) Version() uint64 { return t.version }
