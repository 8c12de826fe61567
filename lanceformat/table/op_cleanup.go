package table

import (
	"context"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// CleanupStats counts what Cleanup removed.
type CleanupStats struct {
	Manifests, DataFiles, DeletionFiles, TransactionFiles, IndexFiles int
	TempFiles                                                         int // the store's own debris (lanceio.TempSweeper)
	Bytes                                                             int64
}

// Cleanup removes old versions and the files only they used. A version is kept when it is
// the latest, when a tag points at it, or when it was committed at or after olderThan;
// every other manifest is removed. Then every file under data/, _deletions/,
// _transactions/ and _indices/ that no kept version references and that was last modified
// before olderThan is removed. Files newer than olderThan are never touched, so writes in
// flight survive as long as olderThan is older than the longest write.
//
// On a dataset with base paths (shallow clones, multi-base datasets), only the dataset's own
// root is listed and cleaned, as Lance does: files under other bases are never touched, even
// when no version references them any more. A file in the root whose name a kept version
// references under a base is kept too (a base may point into the dataset's own root); see
// basedNames.
//
// Not supported yet: branches, and knowing about shallow clones of this dataset (a dataset
// does not record its clones, so cleaning a clone's source can remove files the clone
// reads). A Restore of a removed version that races Cleanup can lose files, as in Lance.
func (d *Dataset) Cleanup(ctx context.Context, olderThan time.Time) (CleanupStats, error) {
	var st CleanupStats
	vs, err := d.Versions(ctx)
	if err != nil {
		return st, err
	}
	if len(vs) == 0 {
		return st, fmt.Errorf("%s: cleanup: %w", d.describe(), ErrVersionNotFound)
	}
	tags, err := d.Tags(ctx)
	if err != nil {
		return st, err
	}
	tagged := map[uint64]bool{}
	for _, t := range tags {
		tagged[t.Version] = true
	}
	refs := map[string]bool{d.Path(versionsDir + hintFile): true}
	based := basedNames{}
	var drop []VersionInfo
	for i, vi := range vs {
		if i < len(vs)-1 && !tagged[vi.Version] && vi.Timestamp.Before(olderThan) {
			drop = append(drop, vi)
			continue
		}
		if err := d.addReferences(ctx, vi, refs, based); err != nil {
			return st, err
		}
	}
	for _, vi := range drop { // manifests first: a crash then leaves only unreferenced files
		if err := d.store.Delete(ctx, vi.Path); err != nil {
			return st, fmt.Errorf("%s: cleanup: %w", d.describe(), err)
		}
		st.Manifests++
		st.Bytes += vi.Size
	}
	if st, err = d.removeUnreferenced(ctx, refs, based, olderThan, st); err != nil {
		return st, err
	}
	if sw, ok := d.store.(lanceio.TempSweeper); ok {
		n, err := sw.SweepTemp(ctx, d.Path(""), olderThan)
		st.TempFiles += n
		if err != nil {
			return st, fmt.Errorf("%s: cleanup: %w", d.describe(), err)
		}
	}
	return st, nil
}

// addReferences adds the paths in the dataset's root that version vi needs to refs (index
// directories end in '/'), and the names of the files it needs under base paths to based.
func (d *Dataset) addReferences(ctx context.Context, vi VersionInfo, refs map[string]bool, based basedNames) error {
	m, err := d.load(ctx, vi.Path, vi.Version, vi.Size)
	if err != nil {
		return fmt.Errorf("%s: cleanup: %w", d.describe(), err)
	}
	refs[vi.Path] = true
	if t := m.Proto.GetTransactionFile(); t != "" {
		refs[d.Path(transactionsDir+t)] = true
	}
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			if df.BaseId != nil {
				based.add(df.GetPath())
				continue
			}
			refs[d.Path(dataDir+df.GetPath())] = true
		}
		if del := f.GetDeletionFile(); del != nil {
			if del.BaseId != nil {
				based.add(DeletionFilePath(f.GetId(), del))
				continue
			}
			refs[d.Path(DeletionFilePath(f.GetId(), del))] = true
		}
	}
	for _, ix := range m.Indices {
		dir := hyphenUUID(ix.GetUuid().GetUuid())
		if ix.BaseId != nil {
			based.add(dir)
			continue
		}
		refs[d.Path("_indices/"+dir+"/")] = true
	}
	return nil
}

// basedNames holds the last path elements (file names, index directory names) of the files
// kept versions reference under base paths. Cleanup cannot tell whether a base path is the
// dataset's own root, or a directory in it, since a dataset does not know its own URI, so
// it keeps every file in the root that has such a name: data and index files are named by
// random UUIDs and deletion files by fragment id, read version and a random id, so no other
// file is kept by mistake.
type basedNames map[string]bool

func (b basedNames) add(p string) { b[path.Base(p)] = true }

// has reports whether rel, a path relative to the dataset root, is a file with a based name,
// or a file in an index directory with one.
func (b basedNames) has(rel string) bool {
	if b[path.Base(rel)] {
		return true
	}
	parts := strings.SplitN(rel, "/", 3)
	return len(parts) == 3 && parts[0] == "_indices" && b[parts[1]]
}

// removeUnreferenced deletes the unreferenced files older than olderThan.
func (d *Dataset) removeUnreferenced(ctx context.Context, refs map[string]bool, based basedNames,
	olderThan time.Time, st CleanupStats) (CleanupStats, error) {
	prefix := d.Path("")
	objs, err := d.store.List(ctx, prefix)
	if err != nil {
		return st, fmt.Errorf("%s: cleanup: %w", d.describe(), err)
	}
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Path, prefix)
		var counter *int
		switch {
		case strings.HasPrefix(rel, dataDir):
			counter = &st.DataFiles
		case strings.HasPrefix(rel, "_deletions/"):
			counter = &st.DeletionFiles
		case strings.HasPrefix(rel, transactionsDir):
			counter = &st.TransactionFiles
		case strings.HasPrefix(rel, "_indices/"):
			counter = &st.IndexFiles
			if parts := strings.SplitN(rel, "/", 3); len(parts) == 3 && refs[d.Path(parts[0]+"/"+parts[1]+"/")] {
				continue
			}
		default:
			continue
		}
		if refs[o.Path] || based.has(rel) || !o.ModTime.Before(olderThan) {
			continue
		}
		if err := d.store.Delete(ctx, o.Path); err != nil {
			return st, fmt.Errorf("%s: cleanup: %w", d.describe(), err)
		}
		*counter++
		st.Bytes += o.Size
	}
	return st, nil
}

// hyphenUUID formats 16 UUID bytes as a hyphenated lowercase string.
func hyphenUUID(b []byte) string {
	h := hex.EncodeToString(b)
	if len(h) != 32 {
		return h
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
