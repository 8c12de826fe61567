package table

import (
	"context"
	"fmt"
	"strings"

	"github.com/flightd/flightd/lanceformat/internal/lancepb"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// Base paths (manifest field 18, feature flag 16). A DataFile, DeletionFile or
// IndexMetadata with a base_id lives under the BasePath with that id instead of under the
// dataset's root: under "{path}/data/", "{path}/_deletions/" and "{path}/_indices/" when the
// base is a dataset root (a shallow clone's source), directly under "{path}/" otherwise.
// BasePath.path is a URI or a local path; its store is opened with the dataset's Opener.
//
// Writing to such a dataset works as Lance does it without target_bases (a per-write option
// of Lance's writers, never stored in the manifest): every commit keeps the manifest's
// base_paths and feature flag 16 (reader and writer), files it does not touch keep their
// base ids, and every new file (data files of appends, updates, compactions and added
// columns; deletion files, also for rows of files under another base) goes to the dataset's
// own root with no base id. Cleanup lists and cleans only the dataset's own root.
// Not supported yet: writing new files to a base (Lance's target_bases), registering bases
// (Lance's add_bases and initial_bases).

// FileLocation is where one file of a dataset version lives.
type FileLocation struct {
	// Store is the object store holding the file: the dataset's own or a base path's.
	Store lanceio.ObjectStore
	// Path is the file's path in Store.
	Path string
	// Base is the URI of the base path holding the file, "" for the dataset's own store.
	Base string
}

// Key identifies the file among all stores of the dataset (for caches): Path for a file in
// the dataset's own store, else the base URI and Path joined by a NUL byte.
func (l FileLocation) Key() string {
	if l.Base == "" {
		return l.Path
	}
	return l.Base + "\x00" + l.Path
}

// String is the file's location for messages: Path, under the base URI if there is one.
func (l FileLocation) String() string {
	if l.Base == "" {
		return l.Path
	}
	return strings.TrimSuffix(l.Base, "/") + "/" + l.Path
}

// WithOpener returns a copy of d that opens the stores of base paths with o. Without one, a
// dataset opens them with its own store if that implements lanceio.Opener, and otherwise
// cannot read files under base paths.
func (d *Dataset) WithOpener(o lanceio.Opener) *Dataset {
	c := *d
	c.opener = o
	return &c
}

// BasePaths returns m's base paths by id.
func BasePaths(m *Manifest) map[uint32]*lancepb.BasePath {
	out := make(map[uint32]*lancepb.BasePath, len(m.Proto.GetBasePaths()))
	for _, b := range m.Proto.GetBasePaths() {
		out[b.GetId()] = b
	}
	return out
}

// locate resolves a file of manifest m: baseID nil means the dataset's own store, where the
// file is rootDir+"/"+name; otherwise the base's store, where it is rootDir+"/"+name for a
// base that is a dataset root and name for any other base.
func (d *Dataset) locate(ctx context.Context, m *Manifest, baseID *uint32, rootDir, name string) (FileLocation, error) {
	if baseID == nil {
		return FileLocation{Store: d.store, Path: d.Path(rootDir + "/" + name)}, nil
	}
	var base *lancepb.BasePath
	for _, b := range m.Proto.GetBasePaths() {
		if b.GetId() == *baseID {
			base = b
			break
		}
	}
	if base == nil {
		return FileLocation{}, fmt.Errorf("manifest %s (version %d): %w: file %s names base path %d, which the manifest does not list",
			m.Path, m.Version(), ErrCorruptManifest, name, *baseID)
	}
	opener := d.opener
	if opener == nil {
		opener, _ = d.store.(lanceio.Opener)
	}
	if opener == nil {
		return FileLocation{}, fmt.Errorf("manifest %s (version %d): file %s under base path %q: %w "+
			"(not supported yet: base paths without a store opener)", m.Path, m.Version(), name, base.GetPath(), ErrUnsupportedFeature)
	}
	store, err := opener.OpenStore(ctx, base.GetPath())
	if err != nil {
		return FileLocation{}, fmt.Errorf("manifest %s (version %d): open base path %d (%q): %w",
			m.Path, m.Version(), base.GetId(), base.GetPath(), err)
	}
	p := name
	if base.GetIsDatasetRoot() {
		p = rootDir + "/" + name
	}
	return FileLocation{Store: store, Path: p, Base: base.GetPath()}, nil
}

// DataFileLocation resolves data file df of a fragment of manifest m.
func (d *Dataset) DataFileLocation(ctx context.Context, m *Manifest, df *lancepb.DataFile) (FileLocation, error) {
	return d.locate(ctx, m, df.BaseId, "data", df.GetPath())
}

// DeletionFileLocation resolves the deletion file of fragment frag of manifest m, which must
// have one.
func (d *Dataset) DeletionFileLocation(ctx context.Context, m *Manifest, frag *lancepb.DataFragment) (FileLocation, error) {
	df := frag.GetDeletionFile()
	if df == nil {
		return FileLocation{}, fmt.Errorf("%s: fragment %d has no deletion file", d.describe(), frag.GetId())
	}
	rel := DeletionFilePath(frag.GetId(), df)
	return d.locate(ctx, m, df.BaseId, "_deletions", strings.TrimPrefix(rel, "_deletions/"))
}

// IndexLocation resolves the directory of index segment ix of manifest m: Path ends in '/'.
func (d *Dataset) IndexLocation(ctx context.Context, m *Manifest, ix *lancepb.IndexMetadata) (FileLocation, error) {
	if len(ix.GetUuid().GetUuid()) != 16 {
		return FileLocation{}, fmt.Errorf("manifest %s (version %d): %w: index %q has a %d-byte uuid",
			m.Path, m.Version(), ErrCorruptManifest, ix.GetName(), len(ix.GetUuid().GetUuid()))
	}
	return d.locate(ctx, m, ix.BaseId, "_indices", hyphenUUID(ix.GetUuid().GetUuid())+"/")
}
