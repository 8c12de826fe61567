package flightsrv

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/plan"
)

// Plan cache for ad-hoc queries (GetFlightInfoStatement), as database servers cache ad-hoc
// plans: a query's text and the call's time-travel settings map to its planned statement
// (Substrait, schema), its optimized logical plan and the table snapshots planning loaded.
// A repeated query skips parsing, binding, Substrait encoding, optimization and schema
// serialization; it still asks the catalog for each table it read, exactly as planning
// did (the same name and version reference), and the entry is used only when every table
// resolves to the very snapshot the plan holds (catalog tables that implement
// SameSnapshot, or the same Table object): a commit, a new tag, a dropped and recreated
// table or an evicted manifest plans the query again.
//
// Only queries are cached (SELECT, WITH, VALUES or a parenthesized query, not EXPLAIN,
// writes or DDL), and only when planning asked the catalog for nothing but tables that
// exist (no table listing, no failed lookup: a case-insensitive match could change when
// a table is created). Planning is deterministic given the text, the settings and the
// snapshots: functions such as now() are evaluated when the plan runs, not when it is
// planned. The cached optimized plan is shared by the runs of the query and never
// modified (the executor builds its operators from it without changing it).

// planCacheSize is the number of queries the plan cache keeps.
const planCacheSize = 256

// planCache holds the plans of recently run queries.
type planCache struct {
	lru *lru.Cache[string, *cachedPlan]
	// hits, misses and stale (entries planned again because a table changed) count
	// lookups, for tests and debugging.
	hits, misses, stale atomic.Int64
}

// cachedPlan is one cached query.
type cachedPlan struct {
	prepared  *planner.Prepared // Logical is nil: optimized replaces it
	optimized plan.Node         // shared by every run; never modified
	schema    []byte            // the FlightInfo schema bytes
	tables    []tableLoad       // every table planning loaded
}

// tableLoad is one catalog lookup made while planning, and what it returned.
type tableLoad struct {
	name  string
	at    catalog.VersionRef
	table catalog.Table
}

func newPlanCache() *planCache {
	c, err := lru.New[string, *cachedPlan](planCacheSize)
	if err != nil {
		panic(err) // only fails for a non-positive size
	}
	return &planCache{lru: c}
}

// snapshotter is implemented by catalog tables that can tell whether another Table reads
// the same snapshot (lancecat.Table).
type snapshotter interface {
	SameSnapshot(o catalog.Table) bool
}

// sameSnapshot reports whether fresh, just loaded, reads the snapshot cached holds.
func sameSnapshot(cached, fresh catalog.Table) bool {
	if s, ok := cached.(snapshotter); ok {
		return s.SameSnapshot(fresh)
	}
	t := reflect.TypeOf(cached)
	return t == reflect.TypeOf(fresh) && t.Comparable() && cached == fresh
}

// currentChecker is implemented by catalogs that can tell whether a table reference still
// resolves to a Table's snapshot without loading a new Table (lancecat.Catalog).
type currentChecker interface {
	StillCurrent(ctx context.Context, name string, at catalog.VersionRef, t catalog.Table) (bool, error)
}

// lookup returns the cached plan of key if every table it read still resolves to the
// same snapshot, else nil.
func (c *planCache) lookup(ctx context.Context, cat catalog.Catalog, key string) *cachedPlan {
	e, ok := c.lru.Get(key)
	if !ok {
		c.misses.Add(1)
		return nil
	}
	for _, tl := range e.tables {
		if !stillCurrent(ctx, cat, tl) {
			c.lru.Remove(key)
			c.stale.Add(1)
			return nil
		}
	}
	c.hits.Add(1)
	return e
}

// stillCurrent reports whether tl's lookup would return its table's snapshot again. An
// error (the table is gone, say) is a no: planning again reports it.
func stillCurrent(ctx context.Context, cat catalog.Catalog, tl tableLoad) bool {
	if cc, ok := cat.(currentChecker); ok {
		same, err := cc.StillCurrent(ctx, tl.name, tl.at, tl.table)
		return err == nil && same
	}
	fresh, err := cat.LoadTable(ctx, tl.name, tl.at)
	return err == nil && fresh.Version() == tl.table.Version() && sameSnapshot(tl.table, fresh)
}

// planCacheMaxText is the longest query text the plan cache keeps. A cached plan costs
// some thirty times its text in memory (a 25 KB IN list kept ~850 KB), and the cache is
// for the short statements that dashboards and lookups repeat.
const planCacheMaxText = 4 << 10

// planCacheKey is the cache key of a query planned under ctx: its text, length-prefixed so
// that no text can spell another call's settings, and the call's time-travel settings. ok
// is false for statements that are not cached.
func planCacheKey(ctx context.Context, sql string) (key string, ok bool) {
	if len(sql) > planCacheMaxText || !isQueryText(sql) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(sql)))
	b.WriteString(":")
	b.WriteString(sql)
	d := bind.VersionDefaultsFrom(ctx)
	if d.IsZero() {
		return b.String(), true
	}
	b.WriteString("\x00as_of=")
	if !d.AsOf.IsZero() {
		b.WriteString(d.AsOf.UTC().Format(time.RFC3339Nano))
	}
	names := make([]string, 0, len(d.Tables))
	for name := range d.Tables {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ref := d.Tables[name]
		b.WriteString("\x00" + strconv.Quote(name) + "=" + strconv.FormatUint(ref.Version, 10) + "," + strconv.Quote(ref.Tag))
		if !ref.Timestamp.IsZero() {
			b.WriteString("," + ref.Timestamp.UTC().Format(time.RFC3339Nano))
		}
	}
	return b.String(), true
}

// isQueryText reports whether sql starts (after blanks and comments) like a query: SELECT,
// WITH, VALUES or an opening parenthesis.
func isQueryText(sql string) bool {
	s := skipBlanks(sql)
	if strings.HasPrefix(s, "(") {
		return true
	}
	for _, kw := range []string{"SELECT", "WITH", "VALUES"} {
		if len(s) >= len(kw) && strings.EqualFold(s[:len(kw)], kw) && (len(s) == len(kw) || !isWordByte(s[len(kw)])) {
			return true
		}
	}
	return false
}

// skipBlanks drops leading white space, -- comments and /* */ comments.
func skipBlanks(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s[2:], "*/")
			if i < 0 {
				return ""
			}
			s = s[i+4:]
		default:
			return s
		}
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// loadRecorder collects the catalog lookups of one planning call.
type loadRecorder struct {
	mu      sync.Mutex
	loads   []tableLoad
	refused bool // a lookup failed or the tables were listed: the plan is not cached
}

type loadRecorderKey struct{}

// recordingCatalog is the catalog of the caching planner: it forwards to the server's
// catalog and records each lookup in the call's loadRecorder. It implements only
// catalog.Catalog, so it plans queries alone (writes and DDL need the catalog's other
// interfaces: planCacheKey never lets them reach it).
type recordingCatalog struct {
	inner catalog.Catalog
}

func recorderFrom(ctx context.Context) *loadRecorder {
	r, _ := ctx.Value(loadRecorderKey{}).(*loadRecorder)
	return r
}

// ListTables implements catalog.Catalog.
func (c recordingCatalog) ListTables(ctx context.Context) ([]string, error) {
	if r := recorderFrom(ctx); r != nil {
		r.mu.Lock()
		r.refused = true
		r.mu.Unlock()
	}
	return c.inner.ListTables(ctx)
}

// LoadTable implements catalog.Catalog.
func (c recordingCatalog) LoadTable(ctx context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	t, err := c.inner.LoadTable(ctx, name, at)
	if r := recorderFrom(ctx); r != nil {
		r.mu.Lock()
		if err != nil {
			r.refused = true
		} else {
			r.loads = append(r.loads, tableLoad{name: name, at: at, table: t})
		}
		r.mu.Unlock()
	}
	return t, err
}

// planCached plans a query (planCacheKey said ok) through the cache. A hit returns the
// cached plan. A miss plans with the recording planner and returns the Prepared; when the
// plan may be cached it also returns fill, which caches it once given p.Logical optimized
// (the speculative run optimizes it anyway: filling the cache then costs the planning call
// nothing).
func (s *Server) planCached(ctx context.Context, key, sql string) (hit *cachedPlan, p *planner.Prepared, fill func(plan.Node), err error) {
	if e := s.plans.lookup(ctx, s.cat, key); e != nil {
		return e, nil, nil, nil
	}
	rec := &loadRecorder{}
	p, err = s.cachePlanner.PlanSQL(context.WithValue(ctx, loadRecorderKey{}, rec), sql)
	if err != nil {
		return nil, nil, nil, err
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.refused || p.IsWrite || p.Analyze || p.Substrait == nil || p.Logical == nil ||
		(p.Params != nil && len(p.Params.Fields()) > 0) {
		return nil, p, nil, nil
	}
	cp := *p
	cp.Logical = nil
	e := &cachedPlan{prepared: &cp, schema: s.schemaBytes(p.Schema), tables: rec.loads}
	return nil, p, func(optimized plan.Node) {
		e.optimized = optimized
		s.plans.lru.Add(key, e)
	}, nil
}
