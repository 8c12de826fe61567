package table

import (
	"context"
	"encoding/hex"
	"fmt"
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
// Not supported yet: datasets with base paths (their files are not listed), and branches.
// A Restore of a removed version that races Cleanup can lose files, as in Lance.
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
	var drop []VersionInfo
	for i, vi := range vs {
		if i < len(vs)-1 && !tagged[vi.Version] && vi.Timestamp.Before(olderThan) {
			drop = append(drop, vi)
			continue
		}
		if err := d.addReferences(ctx, vi, refs); err != nil {
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
	if st, err = d.removeUnreferenced(ctx, refs, olderThan, st); err != nil {
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

// addReferences adds the paths version vi needs to refs (index directories end in '/').
func (d *Dataset) addReferences(ctx context.Context, vi VersionInfo, refs map[string]bool) error {
	m, err := d.load(ctx, vi.Path, vi.Version, vi.Size)
	if err != nil {
		return fmt.Errorf("%s: cleanup: %w", d.describe(), err)
	}
	if len(m.Proto.GetBasePaths()) > 0 {
		return fmt.Errorf("%s: cleanup: version %d has base paths: not supported yet", d.describe(), vi.Version)
	}
	refs[vi.Path] = true
	if t := m.Proto.GetTransactionFile(); t != "" {
		refs[d.Path(transactionsDir+t)] = true
	}
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			refs[d.Path(dataDir+df.GetPath())] = true
		}
		if del := f.GetDeletionFile(); del != nil {
			refs[d.Path(DeletionFilePath(f.GetId(), del))] = true
		}
	}
	for _, ix := range m.Indices {
		refs[d.Path("_indices/"+hyphenUUID(ix.GetUuid().GetUuid())+"/")] = true
	}
	return nil
}

// removeUnreferenced deletes the unreferenced files older than olderThan.
func (d *Dataset) removeUnreferenced(ctx context.Context, refs map[string]bool, olderThan time.Time, st CleanupStats) (CleanupStats, error) {
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
		if refs[o.Path] || !o.ModTime.Before(olderThan) {
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
