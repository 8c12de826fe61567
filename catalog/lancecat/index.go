package lancecat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// indexState is what one Table knows of its scalar indexes: the snapshot's listed and
// opened indexes (shared by every Table of the same manifest) and the selections of the
// expressions asked of this Table (catalog.Indexed).
type indexState struct {
	mu   sync.Mutex
	snap *snapshotIndexes
	memo map[string]*selEntry // by IndexExpr.String()
	// lastExpr and lastKey: the last expression asked and its String (exprKey).
	lastExpr *catalog.IndexExpr
	lastKey  string
}

// snapshotIndexCacheSize bounds the snapshots whose listed and opened indexes are kept.
const snapshotIndexCacheSize = 64

// snapshotIndexes holds the listed and opened indexes of each recently used manifest. The
// catalog caches decoded manifests, so every Table it loads at one version shares one
// *table.Manifest and therefore one snapshotIndexes: indexes are listed and opened once
// per snapshot, not once per query. Keys keep their manifests alive, so a key is never
// reused for another manifest while cached.
var snapshotIndexCache = func() *lru.Cache[*table.Manifest, *snapshotIndexes] {
	c, err := lru.New[*table.Manifest, *snapshotIndexes](snapshotIndexCacheSize)
	if err != nil {
		panic(err) // only fails for a non-positive size
	}
	return c
}()

// snapshotIndexes are the searchable indexes of one manifest. listed is set once listing
// finished (successfully or not); a cancelled listing is retried by the next caller.
type snapshotIndexes struct {
	mu     sync.Mutex
	listed bool
	usable []*usableIndex

	// Stable row ids (index_rowids.go): where each row id lives, built on first use.
	idsMu  sync.Mutex
	ids    *idMap
	idsErr error
}

// usableIndex is one searchable index over a top-level column.
type usableIndex struct {
	info    index.Info
	pub     catalog.IndexInfo
	covered map[uint32]bool // covered fragment ids, minus ids several fragments share

	mu     sync.Mutex
	opened bool        // an open finished (not cancelled)
	ix     index.Index // nil when opening failed (warned)
}

// selEntry is one memoized selection; once makes concurrent callers wait for one search.
type selEntry struct {
	once sync.Once
	sel  *catalog.RowSelection
	err  error
}

// warned holds the keys of the index problems already logged, so each is logged once per
// process.
var warned sync.Map

// warnOnce logs an unusable index once per key.
func warnOnce(key, msg string, args ...any) {
	if _, loaded := warned.LoadOrStore(key, true); !loaded {
		slog.Warn(msg, args...)
	}
}

// Indexes implements catalog.Indexed.
func (t *Table) Indexes(ctx context.Context) ([]catalog.IndexInfo, error) {
	var out []catalog.IndexInfo
	for _, u := range t.usableIndexes(ctx) {
		out = append(out, u.pub)
	}
	return out, nil
}

// snapshot returns the shared index state of the table's manifest.
func (t *Table) snapshot() *snapshotIndexes {
	t.idx.mu.Lock()
	defer t.idx.mu.Unlock()
	if t.idx.snap == nil {
		if s, ok := snapshotIndexCache.Get(t.m); ok {
			t.idx.snap = s
		} else {
			fresh := &snapshotIndexes{}
			prev, found, _ := snapshotIndexCache.PeekOrAdd(t.m, fresh)
			t.idx.snap = fresh
			if found {
				t.idx.snap = prev
			}
		}
	}
	return t.idx.snap
}

// usableIndexes lists the snapshot's searchable indexes once. Listing failures are logged
// (once) and leave the table without indexes.
func (t *Table) usableIndexes(ctx context.Context) []*usableIndex {
	if len(t.m.Indices) == 0 {
		return nil
	}
	snap := t.snapshot()
	snap.mu.Lock()
	defer snap.mu.Unlock()
	if !snap.listed {
		usable, err := t.listUsable(ctx)
		if err != nil {
			return nil // cancelled: this caller scans without indexes, the next one retries
		}
		snap.usable, snap.listed = usable, true
	}
	return snap.usable
}

// listUsable lists the manifest's indexes and keeps the usable ones. Only cancellation is
// an error; other failures are logged once and leave the snapshot without indexes.
func (t *Table) listUsable(ctx context.Context) ([]*usableIndex, error) {
	infos, err := index.List(ctx, t.ds, t.m)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		warnOnce(fmt.Sprintf("%s#list@%d", t.ds.Path(""), t.Version()), "lancecat: cannot list scalar indexes; scanning instead",
			"table", t.name, "version", t.Version(), "err", err)
		return nil, nil
	}
	dup := t.sharedFragmentIDs()
	var out []*usableIndex
	for _, in := range infos {
		if u := t.usable(in, dup); u != nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// sharedFragmentIDs returns the fragment ids several fragments carry (old writers): an
// index cannot tell their rows apart, so they are never treated as covered.
func (t *Table) sharedFragmentIDs() map[uint64]bool {
	seen := map[uint64]int{}
	for _, f := range t.m.Fragments() {
		seen[f.GetId()]++
	}
	dup := map[uint64]bool{}
	for id, n := range seen {
		if n > 1 {
			dup[id] = true
		}
	}
	return dup
}

// usable returns the index as a usableIndex, or nil when it cannot serve this snapshot:
// an unsupported type, several or nested fields, or metadata that disagrees with the
// manifest (a segment built at a later version).
func (t *Table) usable(in index.Info, dup map[uint64]bool) *usableIndex {
	if !in.Supported() || len(in.Fields) != 1 {
		return nil
	}
	col := slices.IndexFunc(t.schema.Fields, func(f *schema.Field) bool { return f.ID == in.Fields[0] })
	if col < 0 {
		return nil
	}
	u := &usableIndex{info: in, covered: map[uint32]bool{},
		pub: catalog.IndexInfo{Name: in.Name, Column: col, Type: in.Type.String()}}
	for _, s := range in.Segments {
		if s.DatasetVersion > t.Version() {
			warnOnce(indexKey(t, in), "lancecat: scalar index segment was built at a later version than the table; scanning instead",
				"table", t.name, "version", t.Version(), "index", in.Name, "segment", s.UUID, "built_at", s.DatasetVersion)
			return nil
		}
	}
	for _, f := range in.Covered() {
		if !dup[uint64(f)] {
			u.covered[f] = true
			u.pub.Fragments = append(u.pub.Fragments, uint64(f))
		}
	}
	return u
}

// indexKey identifies an index of a dataset for warnOnce.
func indexKey(t *Table, in index.Info) string {
	ids := make([]string, len(in.Segments))
	for i, s := range in.Segments {
		ids[i] = s.UUID
	}
	return t.ds.Path("") + "#" + in.Name + "#" + strings.Join(ids, ",")
}

// open opens u once per snapshot; failures are logged once and make the index unusable
// (nil). A cancelled open is retried by the next caller.
func (t *Table) open(ctx context.Context, u *usableIndex) index.Index {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.opened {
		return u.ix
	}
	// Index searches hold no Arrow memory between calls: the Go allocator is enough.
	ix, err := index.Open(ctx, t.ds, t.m, u.info, memory.NewGoAllocator())
	switch {
	case err == nil:
		u.ix, u.opened = ix, true
	case ctx.Err() == nil:
		warnOnce(indexKey(t, u.info), "lancecat: cannot open scalar index; scanning instead",
			"table", t.name, "version", t.Version(), "index", u.info.Name, "err", err)
		u.opened = true
	}
	return u.ix
}

// search runs q on u. It returns a NotAnswerable result when the index cannot be used
// (logged once); only cancellation is an error.
func (t *Table) search(ctx context.Context, u *usableIndex, q index.Query) (index.Result, error) {
	ix := t.open(ctx, u)
	if ix == nil {
		return index.Result{Kind: index.NotAnswerable, Reason: "index unusable"}, nil
	}
	res, err := ix.Search(ctx, q)
	if err == nil && t.stableIDs() {
		res, err = t.mapStableIDs(ctx, res) // index_rowids.go
	}
	if err != nil {
		if ctx.Err() != nil {
			return index.Result{}, ctx.Err()
		}
		warnOnce(indexKey(t, u.info), "lancecat: scalar index search failed; scanning instead",
			"table", t.name, "version", t.Version(), "index", u.info.Name, "err", err)
		return index.Result{Kind: index.NotAnswerable, Reason: err.Error()}, nil
	}
	return res, nil
}

// SelectRows implements catalog.Indexed.
func (t *Table) SelectRows(ctx context.Context, e *catalog.IndexExpr) (*catalog.RowSelection, error) {
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("table %q: %w", t.name, err)
	}
	if len(t.usableIndexes(ctx)) == 0 {
		return nil, nil
	}
	key := t.exprKey(e)
	for attempt := 0; ; attempt++ {
		sel, err := t.memoSelect(ctx, key, e)
		// Runs of one cached plan share this Table: a search another query started and
		// then cancelled is not this caller's failure, so it searches again itself.
		if err == nil || ctx.Err() != nil || attempt == 2 ||
			!(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return sel, err
		}
	}
}

// exprKey is e.String(), the memo's key, remembered for the last expression asked: the runs
// of a cached plan (which shares this Table) ask the same expression object every time, and
// formatting it costs more than the memo lookup. Plans do not change their expressions once
// built, and the remembered pointer keeps its expression alive, so its address is not reused.
func (t *Table) exprKey(e *catalog.IndexExpr) string {
	t.idx.mu.Lock()
	if t.idx.lastExpr == e {
		key := t.idx.lastKey
		t.idx.mu.Unlock()
		return key
	}
	t.idx.mu.Unlock()
	key := e.String()
	t.idx.mu.Lock()
	t.idx.lastExpr, t.idx.lastKey = e, key
	t.idx.mu.Unlock()
	return key
}

// memoSelect evaluates e once per key for all concurrent callers; a failed search is not
// kept.
func (t *Table) memoSelect(ctx context.Context, key string, e *catalog.IndexExpr) (*catalog.RowSelection, error) {
	t.idx.mu.Lock()
	if t.idx.memo == nil {
		t.idx.memo = map[string]*selEntry{}
	}
	ent, ok := t.idx.memo[key]
	if !ok {
		ent = &selEntry{}
		t.idx.memo[key] = ent
	}
	t.idx.mu.Unlock()
	ent.once.Do(func() { ent.sel, ent.err = t.selectRows(ctx, e) })
	if ent.err != nil {
		t.idx.mu.Lock()
		if t.idx.memo[key] == ent {
			delete(t.idx.memo, key)
		}
		t.idx.mu.Unlock()
	}
	return ent.sel, ent.err
}

// errIndexDisagrees marks an index answer that contradicts the data (rows past a
// fragment's end): the index is not used.
var errIndexDisagrees = errors.New("index disagrees with the data")

// selectRows evaluates e and summarizes the selection; nil when nothing is narrowed.
func (t *Table) selectRows(ctx context.Context, e *catalog.IndexExpr) (*catalog.RowSelection, error) {
	ev := &evaluator{t: t, used: map[string]bool{}}
	sels, err := ev.eval(ctx, e)
	if err != nil {
		return nil, err
	}
	out := &catalog.RowSelection{Fragments: make(map[uint64]catalog.FragmentSelection, len(sels)),
		TotalFragments: len(sels), TableBytes: t.dataBytes()}
	narrowed := false
	for fi, s := range sels {
		n, err := t.physicalRows(ctx, fi)
		if err != nil {
			return nil, err
		}
		out.TotalRows += n
		fs := catalog.FragmentSelection{All: s.all, Ranges: s.ranges}
		out.Fragments[t.keys[fi]] = fs
		switch {
		case fs.All:
			out.SelectedRows += n
			out.SelectedFragments++
		case !fs.None():
			out.SelectedRows += fs.RangeRows()
			out.Ranges += len(fs.Ranges)
			out.SelectedFragments++
			narrowed = true
		default:
			narrowed = true
		}
	}
	if !narrowed {
		return nil, nil
	}
	for _, u := range t.usableIndexes(ctx) {
		if ev.used[u.info.Name] {
			out.Used = append(out.Used, u.pub)
		}
	}
	return out, nil
}

// dataBytes is the size of the snapshot's data files, 0 when a file's size is not recorded.
func (t *Table) dataBytes() int64 {
	var n uint64
	for _, f := range t.m.Fragments() {
		for _, df := range f.GetFiles() {
			if df.GetFileSizeBytes() == 0 {
				return 0
			}
			n += df.GetFileSizeBytes()
		}
	}
	return int64(min(n, math.MaxInt64))
}

var _ catalog.Indexed = (*Table)(nil)
