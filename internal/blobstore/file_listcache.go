package blobstore

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// A FileStore remembers the sorted paths of small listings that read one directory, keyed by
// prefix, with the directory's stamp (device, inode, modification and change times). The
// next listing of that prefix stats the directory instead of reading it: on a Linux file
// system every entry created, removed or renamed in a directory updates its modification and
// change times, and a table removed and created again is a new directory (a new inode, or
// new times). A point query resolves the latest version of its table with a listing of the
// first entry of _versions/ per query; with the stamp that is two stats (the directory and
// the entry) instead of reading the directory. The entries' sizes and modification times
// still come from stats of their own, so an object rewritten in place is seen too.
//
// Timestamps are coarse (a file system stamps changes with a clock that advances in ticks
// of up to a few milliseconds, some in whole seconds), so two changes in one tick can leave
// the same stamp. A listing is therefore only remembered when the directory's change time
// is older than settledAge when the listing starts: any later change to the directory then
// gets a later time, and so a different stamp. A directory changed more recently is read
// every time, as every directory is on systems without the stamp (dirStampOf).

const (
	// settledAge is how old a directory's last change must be for its listing to be kept.
	settledAge = 2 * time.Second
	// maxListings bounds the listings a FileStore keeps.
	maxListings = 256
	// maxListedPaths bounds the paths kept of one listing: a longer one keeps its first
	// maxListedPaths, enough for any ListFirst of that many.
	maxListedPaths = 128
)

// dirStamp identifies a directory's state; equal stamps (taken when the directory's last
// change had settled) mean equal entries.
type dirStamp struct {
	dev, ino         uint64
	mtimeNS, ctimeNS int64
}

// listing is a remembered listing: its stamp, and its first paths in order.
type listing struct {
	stamp    dirStamp
	paths    []string // never modified once stored
	complete bool     // paths is the whole listing
}

// listCache holds a FileStore's remembered listings.
type listCache struct {
	entries *lru.Cache[string, listing]
	// settled is settledAge (tests shorten it).
	settled time.Duration
	now     func() time.Time
}

func newListCache() *listCache {
	c, _ := lru.New[string, listing](maxListings) // only fails for a size ≤ 0
	return &listCache{entries: c, settled: settledAge, now: time.Now}
}

// get returns the first n paths (n < 0: all) of the listing of prefix remembered with
// stamp, ok=false if there is none or it may be stale.
func (c *listCache) get(prefix string, stamp dirStamp, n int) ([]string, bool) {
	l, ok := c.entries.Get(prefix)
	if !ok || l.stamp != stamp {
		return nil, false
	}
	if !l.complete && (n < 0 || n > len(l.paths)) {
		return nil, false
	}
	return l.paths, true
}

// put remembers paths (the whole sorted listing of prefix, which read one directory whose
// stamp was stamp, taken at start, before reading it) if the directory had settled.
func (c *listCache) put(prefix string, stamp dirStamp, start time.Time, paths []string) {
	if start.UnixNano()-stamp.ctimeNS < c.settled.Nanoseconds() {
		c.forget(prefix)
		return
	}
	l := listing{stamp: stamp, complete: len(paths) <= maxListedPaths}
	l.paths = append([]string(nil), paths[:min(len(paths), maxListedPaths)]...)
	c.entries.Add(prefix, l)
}

// forget drops the listing of prefix.
func (c *listCache) forget(prefix string) { c.entries.Remove(prefix) }
