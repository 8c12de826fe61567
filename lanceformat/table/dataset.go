package table

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Dataset is one Lance table in an object store, rooted at a directory of the store.
// It holds no state besides its location and is safe for concurrent use.
type Dataset struct {
	store  lanceio.ObjectStore
	root   string         // "" or a '/'-separated directory without a trailing slash
	opener lanceio.Opener // opens base paths' stores; nil: the store's own, if it has one
}

// VersionInfo describes one committed version.
type VersionInfo struct {
	Version   uint64
	Path      string    // manifest path in the store
	Size      int64     // manifest size in bytes
	ModTime   time.Time // the manifest object's modification time, from the listing
	Timestamp time.Time // commit time; only set by Versions
}

// OpenDataset returns the dataset rooted at root ("" for the store root). It does no I/O;
// use LatestVersion or Checkout to find out whether a dataset is there.
func OpenDataset(store lanceio.ObjectStore, root string) *Dataset {
	for len(root) > 0 && root[len(root)-1] == '/' {
		root = root[:len(root)-1]
	}
	return &Dataset{store: store, root: root}
}

// Store is the object store the dataset lives in.
func (d *Dataset) Store() lanceio.ObjectStore { return d.store }

// Root is the dataset's directory in the store ("" for the store root).
func (d *Dataset) Root() string { return d.root }

// Path joins rel (a path relative to the dataset root) to the root.
func (d *Dataset) Path(rel string) string {
	if d.root == "" {
		return rel
	}
	return d.root + "/" + rel
}

// listVersions lists _versions/ and returns the committed versions, ascending, without
// timestamps. If both a V1 and a V2 file name the same version, the V2 one wins.
func (d *Dataset) listVersions(ctx context.Context) ([]VersionInfo, error) {
	objs, err := d.store.List(ctx, d.Path(versionsDir))
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", d.describe(), err)
	}
	byVersion := map[uint64]VersionInfo{}
	schemes := map[uint64]NamingScheme{}
	for _, o := range objs {
		if path.Dir(o.Path) != path.Clean(d.Path(versionsDir)) {
			continue // nested directories are not versions
		}
		v, scheme, ok := ParseManifestName(o.Path)
		if !ok {
			continue
		}
		if prev, dup := schemes[v]; dup && prev == NamingV2 {
			continue
		}
		schemes[v] = scheme
		byVersion[v] = VersionInfo{Version: v, Path: o.Path, Size: o.Size, ModTime: o.ModTime}
	}
	out := make([]VersionInfo, 0, len(byVersion))
	for _, vi := range byVersion {
		out = append(out, vi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// newestPage is how many of the newest versions newestVersions asks a FirstLister for.
const newestPage = 64

// newestVersions returns the newest committed versions, ascending, with the newest last.
// When the store is a lanceio.FirstLister and _versions/ holds V2 names (inverted, so they
// sort newest first), one short listing of the first entries gives the newest versions
// without listing every version of a long history (on S3 a listing of N objects costs
// N/1000 round trips plus the time to parse N entries). Otherwise, or when the first
// entries hold a V1 name (a dataset with mixed naming), it lists every version.
func (d *Dataset) newestVersions(ctx context.Context) ([]VersionInfo, error) {
	return d.newestFirst(ctx, newestPage)
}

// newestFirst is newestVersions from the first n entries of _versions/. When none of them
// is a manifest (a staging or temporary name sorts first), a shorter page than newestPage
// is retried at newestPage before the whole directory is listed.
func (d *Dataset) newestFirst(ctx context.Context, n int) ([]VersionInfo, error) {
	fl, ok := d.store.(lanceio.FirstLister)
	if !ok {
		return d.listVersions(ctx)
	}
	dir := d.Path(versionsDir)
	objs, err := fl.ListFirst(ctx, dir, n)
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", d.describe(), err)
	}
	var out []VersionInfo
	for _, o := range objs {
		if path.Dir(o.Path) != path.Clean(dir) {
			continue
		}
		v, scheme, ok := ParseManifestName(o.Path)
		if !ok {
			continue
		}
		if scheme != NamingV2 {
			return d.listVersions(ctx)
		}
		out = append(out, VersionInfo{Version: v, Path: o.Path, Size: o.Size, ModTime: o.ModTime})
	}
	if len(out) == 0 {
		if n < newestPage && len(objs) == n {
			return d.newestFirst(ctx, newestPage)
		}
		return d.listVersions(ctx) // no V2 names first: V1 names, or a dataset with none
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// newestOne returns the listing entry of the latest committed version, ok=false if there
// is none. On a lanceio.FirstLister store whose first _versions/ entry is a V2 manifest name
// (inverted, so the first in path order is the newest), that one entry is the latest: the
// store reads the directory and stats that file only, not a page of older ones. This is the
// rule the newest page follows too (and Lance's reader on object stores): a V2 name first
// means the newest version (a V1 name sorting after V2 ones in a directory that mixes schemes,
// which Lance's own writers never make, is not looked for).
func (d *Dataset) newestOne(ctx context.Context) (VersionInfo, bool, error) {
	return lastOf(d.newestFirst(ctx, 1))
}

// lastOf is the last of a listing's versions (the newest), ok=false if there are none.
func lastOf(vs []VersionInfo, err error) (VersionInfo, bool, error) {
	if err != nil || len(vs) == 0 {
		return VersionInfo{}, false, err
	}
	return vs[len(vs)-1], true, nil
}

// LatestManifest returns the listing entry (path, size, modification time; no Timestamp) of
// the newest committed version, ok=false if the dataset has none (or does not exist). It
// lists as little of _versions/ as it can (see newestOne): on every query of a table at its
// latest version, this is the check that sees commits by other processes.
func (d *Dataset) LatestManifest(ctx context.Context) (VersionInfo, bool, error) {
	return d.newestOne(ctx)
}

func (d *Dataset) describe() string {
	if d.root == "" {
		return "dataset at store root"
	}
	return "dataset " + d.root
}

// Manifests lists the committed versions, oldest first, from one listing of _versions/
// (without reading the manifests, so Timestamp is not set). A dataset that does not exist
// has none.
func (d *Dataset) Manifests(ctx context.Context) ([]VersionInfo, error) {
	return d.listVersions(ctx)
}

// NewestManifests lists the newest committed versions, oldest first, like Manifests but
// possibly without the older ones: on a lanceio.FirstLister store, a dataset with V2 names
// needs only the first entries of _versions/ (see newestVersions). The last entry is always
// the latest version. A dataset that does not exist has none.
func (d *Dataset) NewestManifests(ctx context.Context) ([]VersionInfo, error) {
	return d.newestVersions(ctx)
}

// Load reads the manifest a listing entry names.
func (d *Dataset) Load(ctx context.Context, vi VersionInfo) (*Manifest, error) {
	return d.load(ctx, vi.Path, vi.Version, vi.Size)
}

// LatestVersion returns the newest committed version number. It fails with
// ErrVersionNotFound if the dataset has no versions (or does not exist).
func (d *Dataset) LatestVersion(ctx context.Context) (uint64, error) {
	last, ok, err := d.newestOne(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%s: no manifests in _versions/: %w", d.describe(), ErrVersionNotFound)
	}
	return last.Version, nil
}

// Latest loads the newest version's manifest.
func (d *Dataset) Latest(ctx context.Context) (*Manifest, error) {
	last, ok, err := d.newestOne(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no manifests in _versions/: %w", d.describe(), ErrVersionNotFound)
	}
	return d.load(ctx, last.Path, last.Version, last.Size)
}

// Checkout loads the manifest of version v. It fails with ErrVersionNotFound if there is no
// such version.
func (d *Dataset) Checkout(ctx context.Context, v uint64) (*Manifest, error) {
	if v == 0 {
		return nil, fmt.Errorf("%s: version 0: %w", d.describe(), ErrVersionNotFound)
	}
	for _, s := range []NamingScheme{NamingV2, NamingV1} {
		p := d.Path(versionsDir + ManifestName(s, v))
		size, err := d.store.Size(ctx, p)
		if errors.Is(err, lanceio.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: open version %d: %w", d.describe(), v, err)
		}
		return d.load(ctx, p, v, size)
	}
	return nil, fmt.Errorf("%s: version %d: %w", d.describe(), v, ErrVersionNotFound)
}

// load reads and decodes the manifest at p, checks that it is version want and that its
// reader features are supported.
func (d *Dataset) load(ctx context.Context, p string, want uint64, size int64) (*Manifest, error) {
	data, err := d.store.ReadRange(ctx, p, 0, size)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s (version %d): %w", p, want, err)
	}
	m, err := DecodeManifest(p, data)
	if err != nil {
		return nil, err
	}
	if m.Version() != want {
		return nil, fmt.Errorf("manifest %s: %w: records version %d, name says %d",
			p, ErrCorruptManifest, m.Version(), want)
	}
	if err := CheckReaderFeatures(m); err != nil {
		return nil, err
	}
	return m, nil
}

// Versions lists all committed versions, ascending, with their commit timestamps. It reads
// every manifest.
func (d *Dataset) Versions(ctx context.Context) ([]VersionInfo, error) {
	vs, err := d.listVersions(ctx)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		m, err := d.readTimestamp(ctx, vs[i])
		if err != nil {
			return nil, err
		}
		vs[i].Timestamp = m
	}
	return vs, nil
}

func (d *Dataset) readTimestamp(ctx context.Context, vi VersionInfo) (time.Time, error) {
	data, err := d.store.ReadRange(ctx, vi.Path, 0, vi.Size)
	if err != nil {
		return time.Time{}, fmt.Errorf("read manifest %s (version %d): %w", vi.Path, vi.Version, err)
	}
	m, err := DecodeManifest(vi.Path, data)
	if err != nil {
		return time.Time{}, err
	}
	return m.Timestamp(), nil
}

// CheckoutAsOf loads the newest version whose commit timestamp is at or before t. It fails
// with ErrVersionNotFound if every version is newer than t.
func (d *Dataset) CheckoutAsOf(ctx context.Context, t time.Time) (*Manifest, error) {
	vs, err := d.listVersions(ctx)
	if err != nil {
		return nil, err
	}
	// Timestamps are not guaranteed monotonic, so look at every version, newest first, and
	// keep the newest version (by number) that qualifies.
	for i := len(vs) - 1; i >= 0; i-- {
		ts, err := d.readTimestamp(ctx, vs[i])
		if err != nil {
			return nil, err
		}
		if !ts.After(t) {
			return d.load(ctx, vs[i].Path, vs[i].Version, vs[i].Size)
		}
	}
	return nil, fmt.Errorf("%s: no version at or before %s: %w",
		d.describe(), t.UTC().Format(time.RFC3339Nano), ErrVersionNotFound)
}
