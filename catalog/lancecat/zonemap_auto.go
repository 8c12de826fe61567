package lancecat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/index"
	"github.com/flightd/flightd/lanceformat/schema"
	"github.com/flightd/flightd/lanceformat/table"
)

// Automatic zone maps. A table whose manifest config has AutoZoneMapKey = "true" keeps a
// ZONEMAP index on each top-level numeric, date and timestamp column: after every create
// and append through this catalog, one more commit (a Lance CreateIndex transaction, as
// pylance's create_scalar_index and optimize_indices make) adds a segment covering the
// fragments no segment of that index covers yet (Lance's "delta" segments). Once an index
// has AutoZoneMapMaxSegments segments, the next maintenance replaces them by one segment
// over every fragment, so the segment count stays bounded.
//
// How to switch it on:
//   - pylance: ds.update_config({"flightd.auto_zonemap": "true"}) (the next write through
//     flightd builds the zone maps over every fragment);
//   - flightd: CreateTableWith with table.CreateOptions.Config[AutoZoneMapKey] = "true", or
//     CreateTable (CREATE TABLE AS, Flight SQL bulk ingest) with an Arrow schema whose
//     metadata has AutoZoneMapKey = "true"; the key is then copied into the config.
//
// The index of column c is named c + AutoZoneMapSuffix. Columns that already have another
// scalar index (a BTREE built by the user, say) are left alone, and so is a column whose
// zone-map name is taken by an index of another type or field. The data commit never
// depends on the zone maps: if building or committing them fails (a concurrent index change,
// say), the failure is logged and the write still succeeds; the next write covers what is
// missing. UpdateRows and compaction do not maintain them (their new fragments are covered
// by the next create or append, or by MaintainZoneMaps).

// AutoZoneMapKey is the table config key (and Arrow schema metadata key at creation) that
// switches automatic zone maps on when its value is "true" (case-insensitive).
const AutoZoneMapKey = "flightd.auto_zonemap"

// AutoZoneMapSuffix is appended to a column's name to name its automatic zone map.
const AutoZoneMapSuffix = "_zonemap"

// AutoZoneMapMaxSegments bounds the segments of an automatic zone map: maintenance that
// would add one more rebuilds a single segment instead.
const AutoZoneMapMaxSegments = 16

// AutoZoneMaps reports whether manifest m's table has automatic zone maps switched on.
func AutoZoneMaps(m *table.Manifest) bool {
	return strings.EqualFold(strings.TrimSpace(m.Proto.GetConfig()[AutoZoneMapKey]), "true")
}

// autoZoneMapType reports whether columns of type t get an automatic zone map: integers,
// float32/64, dates and timestamps.
func autoZoneMapType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		return true
	}
	return false
}

// zoneMapWork is the maintenance of one column's automatic zone map.
type zoneMapWork struct {
	name    string
	fieldID int32
	all     bool     // build one segment over every fragment
	frags   []uint64 // else: the fragments to build a delta segment over (none: build nothing)
	removed []index.Segment
}

// MaintainZoneMaps brings the automatic zone maps of table name's latest version up to date
// (see AutoZoneMapKey) in one CreateIndex commit and returns the table's latest version
// afterwards. It does nothing (and returns the latest version) when the table does not have
// them switched on or they already cover every fragment.
func (c *Catalog) MaintainZoneMaps(ctx context.Context, name string) (uint64, error) {
	ds, err := c.Dataset(name)
	if err != nil {
		return 0, err
	}
	m, err := ds.Latest(ctx)
	if err != nil {
		return 0, writeError(ctx, ds, "maintain zone maps of", name, err)
	}
	if !AutoZoneMaps(m) || len(m.Fragments()) == 0 {
		return m.Version(), nil
	}
	work, err := planZoneMaps(ctx, ds, m)
	if err != nil {
		return 0, fmt.Errorf("maintain zone maps of table %q: %w", name, err)
	}
	if len(work) == 0 {
		return m.Version(), nil
	}
	next, err := commitZoneMaps(ctx, ds, m, work)
	if err != nil {
		return 0, fmt.Errorf("maintain zone maps of table %q (version %d): %w", name, m.Version(), classify(err))
	}
	return next, nil
}

// afterWrite runs MaintainZoneMaps after a write that committed version v of table name.
// A failure is logged, not returned: the write itself is committed. It returns the latest
// version it knows of (v when no zone map was committed).
func (c *Catalog) afterWrite(ctx context.Context, name string, v uint64) uint64 {
	next, err := c.MaintainZoneMaps(ctx, name)
	if err != nil {
		slog.Warn("lancecat: automatic zone maps not updated; queries scan the uncovered fragments",
			"table", name, "version", v, "err", err)
		return v
	}
	return max(v, next)
}

// planZoneMaps decides, per eligible column of m, which segment to build and which to
// remove.
func planZoneMaps(ctx context.Context, ds *table.Dataset, m *table.Manifest) ([]zoneMapWork, error) {
	sc, err := schema.FromProto(m.Fields())
	if err != nil {
		return nil, fmt.Errorf("schema of version %d: %w", m.Version(), err)
	}
	infos, err := index.List(ctx, ds, m)
	if err != nil {
		return nil, err
	}
	var out []zoneMapWork
	for _, f := range sc.Fields {
		if !autoZoneMapType(f.Type) {
			continue
		}
		if w, ok := planColumn(m, infos, f); ok {
			out = append(out, w)
		}
	}
	return out, nil
}

// planColumn plans the zone map of column f; ok is false when there is nothing to do.
func planColumn(m *table.Manifest, infos []index.Info, f *schema.Field) (zoneMapWork, bool) {
	w := zoneMapWork{name: f.Name + AutoZoneMapSuffix, fieldID: f.ID}
	var mine *index.Info
	for i := range infos {
		in := &infos[i]
		switch {
		case in.Name == w.name && in.Type == index.TypeZoneMap && slices.Equal(in.Fields, []int32{f.ID}):
			mine = in
		case in.Name == w.name || slices.Contains(in.Fields, f.ID):
			return w, false // the name is taken, or the user indexed the column already
		}
	}
	if mine == nil {
		w.all = true
		return w, true
	}
	covered := map[uint64]bool{}
	for _, id := range mine.Covered() {
		covered[uint64(id)] = true
	}
	var live []index.Segment
	for _, s := range mine.Segments {
		if len(s.Fragments) == 0 {
			w.removed = append(w.removed, s) // every fragment it covered is gone
		} else {
			live = append(live, s)
		}
	}
	for _, fr := range m.Fragments() {
		if !covered[fr.GetId()] {
			w.frags = append(w.frags, fr.GetId())
		}
	}
	if len(w.frags) == 0 {
		return w, len(w.removed) > 0
	}
	if len(live)+1 > AutoZoneMapMaxSegments {
		w.all, w.frags, w.removed = true, nil, mine.Segments // one segment over everything instead
	}
	return w, true
}

// commitZoneMaps builds the planned segments and commits them (and the removals) as one
// CreateIndex transaction read at m's version. It returns the committed version.
func commitZoneMaps(ctx context.Context, ds *table.Dataset, m *table.Manifest, work []zoneMapWork) (uint64, error) {
	mem := memory.NewGoAllocator() // the column values are read, summarized and dropped
	added := m.Indices[:0:0]       // of lanceformat's internal IndexMetadata type
	removed := m.Indices[:0:0]
	for _, w := range work {
		for _, s := range w.removed {
			removed = append(removed, s.Meta)
		}
		if !w.all && len(w.frags) == 0 {
			continue
		}
		_, md, err := index.BuildFragments(ctx, ds, m, w.name, w.fieldID, index.TypeZoneMap, w.frags, nil, mem)
		if errors.Is(err, index.ErrNoData) {
			continue
		}
		if err != nil {
			return 0, err
		}
		added = append(added, md)
	}
	if len(added) == 0 && len(removed) == 0 {
		return m.Version(), nil
	}
	op, err := table.NewCreateIndex(added, removed)
	if err != nil {
		return 0, err
	}
	next, err := ds.Commit(ctx, m.Version(), op, nil)
	if err != nil {
		return 0, err
	}
	return next.Version(), nil
}

// withAutoZoneMapConfig returns opts with AutoZoneMapKey copied into its config when the
// Arrow schema's metadata sets it (how CREATE TABLE AS and bulk ingest switch it on).
func withAutoZoneMapConfig(as *arrow.Schema, opts *table.CreateOptions) *table.CreateOptions {
	v, ok := as.Metadata().GetValue(AutoZoneMapKey)
	if !ok {
		return opts
	}
	out := table.CreateOptions{}
	if opts != nil {
		out = *opts
	}
	cfg := make(map[string]string, len(out.Config)+1)
	maps.Copy(cfg, out.Config)
	if _, set := cfg[AutoZoneMapKey]; !set {
		cfg[AutoZoneMapKey] = v
	}
	out.Config = cfg
	return &out
}
