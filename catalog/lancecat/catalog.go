// Package lancecat implements catalog.Catalog over Lance datasets in an object store.
//
// Every directory "<name>.lance/" directly under the store root that holds committed
// manifests is the table <name>. LoadTable resolves a catalog.VersionRef to one manifest;
// the returned Table is an immutable snapshot of that version. Scans read fragments through
// the Lance file reader (lanceformat/file) and drop deleted rows.
//
// Caches (LRUs bounded in bytes, shared by all tables of a Catalog; see Options): decoded
// manifests by (table, version, manifest object identity), and opened data-file readers by
// location. Both hold immutable objects, so they never need invalidation; "latest" is
// always re-resolved by listing _versions/.
//
// Files under a dataset's base paths (Lance's multi-base datasets, shallow clones) are read
// through stores opened with Options.Bases, else with the catalog store's own
// lanceio.Opener (internal/blobstore's stores have one). Writes to such datasets put new
// files under the dataset's own root, as pylance does without target_bases.
package lancecat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/file"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

const tableSuffix = ".lance"

// Catalog is the Lance catalog. It is safe for concurrent use.
type Catalog struct {
	store     lanceio.ObjectStore
	bases     lanceio.Opener // opens base paths (cached); nil if neither Options nor store can
	manifests *byteCache[manifestKey, *table.Manifest]
	files     *byteCache[string, dataFile]
	blocks    *file.BlockCache // page bytes of data files (Options.DataCacheBytes); nil: none
}

type manifestKey struct {
	table   string
	version uint64
	size    int64 // with modTime: the manifest object's identity in the listing
	modTime int64
}

// New returns a catalog of the tables under the root of store, with default Options.
func New(store lanceio.ObjectStore) *Catalog {
	return NewWithOptions(store, Options{})
}

// NewWithOptions returns a catalog of the tables under the root of store.
func NewWithOptions(store lanceio.ObjectStore, opts Options) *Catalog {
	mb, fb := opts.cacheBudgets()
	bases := opts.Bases
	if bases == nil {
		bases, _ = store.(lanceio.Opener) // stores may open locations of their own kind
	}
	if bases != nil {
		bases = lanceio.CachingOpener(bases) // one store per base, whose handles are reused
	}
	return &Catalog{
		store: store, bases: bases,
		manifests: newByteCache[manifestKey, *table.Manifest](mb),
		files:     newByteCache[string, dataFile](fb),
		blocks:    opts.blockCache(),
	}
}

// dataset returns the dataset of table name (a valid name), reading base paths with the
// catalog's opener.
func (c *Catalog) dataset(name string) *table.Dataset {
	ds := table.OpenDataset(c.store, name+tableSuffix)
	if c.bases != nil {
		ds = ds.WithOpener(c.bases)
	}
	return ds
}

// ListTables implements catalog.Catalog. It lists the whole store (the ObjectStore interface
// has no delimiter listing) and keeps the names of "<name>.lance/_versions/*.manifest".
func (c *Catalog) ListTables(ctx context.Context) ([]string, error) {
	objs, err := c.store.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		parts := strings.Split(o.Path, "/")
		if len(parts) != 3 || parts[1] != "_versions" {
			continue
		}
		name, ok := strings.CutSuffix(parts[0], tableSuffix)
		if !ok || !validName(name) {
			continue
		}
		if _, _, ok := table.ParseManifestName(parts[2]); ok {
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\") && path.Clean(name) == name &&
		name != "." && name != ".."
}

// LoadTable implements catalog.Catalog.
func (c *Catalog) LoadTable(ctx context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	if !validName(name) {
		return nil, fmt.Errorf("load table %q: %w", name, catalog.ErrNoSuchTable)
	}
	ds := c.dataset(name)
	m, err := c.resolve(ctx, name, ds, at)
	if err != nil {
		return nil, classify(err)
	}
	t, err := newTable(name, ds, m, c.files)
	if t != nil {
		t.blocks = c.blocks
	}
	return t, classify(err)
}

// resolve finds the manifest at names, mapping "not found" errors to the catalog sentinels.
// It lists _versions/ once (only its newest entry or entries when that is enough, see
// table.Dataset.LatestManifest and NewestManifests): the listing says which versions exist
// now (a table dropped and created again reuses version numbers), and cached manifests are
// keyed by the manifest object's identity in that listing, never by the version number
// alone.
func (c *Catalog) resolve(ctx context.Context, name string, ds *table.Dataset, at catalog.VersionRef) (*table.Manifest, error) {
	if at.IsLatest() {
		return c.latest(ctx, name, ds)
	}
	vs, err := ds.NewestManifests(ctx)
	if err != nil {
		return nil, fmt.Errorf("load table %q: %w", name, err)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("load table %q: %w", name, catalog.ErrNoSuchTable)
	}
	var m *table.Manifest
	switch {
	case at.Version != 0:
		m, err = c.version(ctx, name, ds, vs, at.Version)
	case at.Tag != "":
		var t table.Tag
		if t, err = ds.Tag(ctx, at.Tag); err == nil {
			if t.Branch != "" && t.Branch != "main" {
				err = fmt.Errorf("tag %q is on branch %q: not supported yet: branches", at.Tag, t.Branch)
			} else {
				m, err = c.version(ctx, name, ds, vs, t.Version)
			}
		}
	default:
		m, err = ds.CheckoutAsOf(ctx, at.Timestamp)
	}
	if errors.Is(err, table.ErrVersionNotFound) || errors.Is(err, table.ErrTagNotFound) {
		return nil, fmt.Errorf("load table %q at %s: %w: %w", name, at, catalog.ErrNoSuchVersion, err)
	}
	if err != nil {
		return nil, fmt.Errorf("load table %q at %s: %w", name, at, err)
	}
	return m, nil
}

// latest loads the newest version of table name, listing only the newest entry of its
// _versions/ when the store and naming allow (table.Dataset.LatestManifest).
func (c *Catalog) latest(ctx context.Context, name string, ds *table.Dataset) (*table.Manifest, error) {
	vi, ok, err := ds.LatestManifest(ctx)
	if err != nil {
		return nil, fmt.Errorf("load table %q: %w", name, err)
	}
	if !ok {
		return nil, fmt.Errorf("load table %q: %w", name, catalog.ErrNoSuchTable)
	}
	m, err := c.manifest(ctx, name, ds, vi)
	if errors.Is(err, table.ErrVersionNotFound) {
		return nil, fmt.Errorf("load table %q at latest: %w: %w", name, catalog.ErrNoSuchVersion, err)
	}
	if err != nil {
		return nil, fmt.Errorf("load table %q at latest: %w", name, err)
	}
	return m, nil
}

// version loads version v if the listing has it. vs may hold only the newest versions: an
// older v is looked up in a full listing.
func (c *Catalog) version(ctx context.Context, name string, ds *table.Dataset, vs []table.VersionInfo, v uint64) (*table.Manifest, error) {
	if len(vs) > 0 && v < vs[0].Version {
		all, err := ds.Manifests(ctx)
		if err != nil {
			return nil, err
		}
		vs = all
	}
	i, ok := slices.BinarySearchFunc(vs, v, func(vi table.VersionInfo, v uint64) int { return cmp.Compare(vi.Version, v) })
	if !ok {
		return nil, fmt.Errorf("dataset %s: version %d: %w", name, v, table.ErrVersionNotFound)
	}
	return c.manifest(ctx, name, ds, vs[i])
}

// manifest loads the manifest a listing entry names, through the cache.
func (c *Catalog) manifest(ctx context.Context, name string, ds *table.Dataset, vi table.VersionInfo) (*table.Manifest, error) {
	key := manifestKey{name, vi.Version, vi.Size, vi.ModTime.UnixNano()}
	if m, ok := c.manifests.Get(key); ok {
		return m, nil
	}
	m, err := ds.Load(ctx, vi)
	if err != nil {
		return nil, err
	}
	c.manifests.Add(key, m, manifestCost(m))
	return m, nil
}

var _ catalog.Catalog = (*Catalog)(nil)
