package index

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/lanceformat/lanceio"
)

// zoneStats is one row of zonemap.lance.
type zoneStats struct {
	zone                Zone
	min, max            value
	nullCount, nanCount uint32
}

// zoneMapIndex answers queries with candidate zones (§8.4); the file is loaded at open.
type zoneMapIndex struct {
	covered []uint32
	zones   []zoneStats
}

func openZoneMap(ctx context.Context, store lanceio.ObjectStore, dir string, covered []uint32,
	mem memory.Allocator) (*zoneMapIndex, error) {
	r, err := openFile(ctx, store, dir, zoneMapFile)
	if err != nil {
		return nil, err
	}
	arrs, err := readColumns(ctx, r, 0, r.NumRows(), mem,
		"min", "max", "null_count", "nan_count", "fragment_id", "zone_start", "zone_length")
	if err != nil {
		return nil, err
	}
	defer releaseAll(arrs)
	zones, err := readZones(arrs[4:])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path(), err)
	}
	nulls, ok1 := arrs[2].(*array.Uint32)
	nans, ok2 := arrs[3].(*array.Uint32)
	if !ok1 || !ok2 {
		return nil, corrupt("%s: null_count/nan_count are %s/%s, want uint32", r.Path(), arrs[2].DataType(), arrs[3].DataType())
	}
	z := &zoneMapIndex{covered: covered}
	for i, zone := range zones {
		lo, okLo := valueAt(arrs[0], i)
		hi, okHi := valueAt(arrs[1], i)
		if !okLo || !okHi {
			return nil, notSupported("zone map over %s", arrs[0].DataType())
		}
		z.zones = append(z.zones, zoneStats{zone: zone, min: lo, max: hi, nullCount: nulls.Value(i), nanCount: nans.Value(i)})
	}
	return z, nil
}

// readZones decodes the fragment_id, zone_start and zone_length columns (UInt64; UInt32
// accepted, as the docs describe zone_length).
func readZones(cols []arrow.Array) ([]Zone, error) {
	get := func(a arrow.Array, i int) (uint64, error) {
		switch x := a.(type) {
		case *array.Uint64:
			return x.Value(i), nil
		case *array.Uint32:
			return uint64(x.Value(i)), nil
		}
		return 0, corrupt("zone column is %s, want uint64", a.DataType())
	}
	out := make([]Zone, cols[0].Len())
	for i := range out {
		var v [3]uint64
		for c := range v {
			var err error
			if v[c], err = get(cols[c], i); err != nil {
				return nil, err
			}
		}
		if v[0] > 0xFFFFFFFF {
			return nil, corrupt("zone %d: fragment id %d", i, v[0])
		}
		out[i] = Zone{Fragment: uint32(v[0]), Start: v[1], Length: v[2]}
	}
	return out, nil
}

func (z *zoneMapIndex) Type() Type { return TypeZoneMap }

// Search returns the zones whose statistics do not rule the query out.
func (z *zoneMapIndex) Search(_ context.Context, q Query) (Result, error) {
	p, err := compile(q)
	if err != nil {
		return unanswerable(err)
	}
	out := Result{Kind: AtMost, Covered: z.covered}
	for _, s := range z.zones {
		if zoneMayMatch(s, p) {
			out.Zones = append(out.Zones, s.zone)
		}
	}
	return out, nil
}

// zoneMayMatch decides one zone. NaNs are not in min/max, so a zone with NaNs is kept for
// any non-null query.
func zoneMayMatch(s zoneStats, p plan) bool {
	if p.nulls && s.nullCount > 0 {
		return true
	}
	if len(p.ivs) == 0 || uint64(s.nullCount) >= s.zone.Length {
		return false
	}
	if s.nanCount > 0 {
		return true
	}
	if s.min.isNull() && s.max.isNull() {
		return true // no statistics
	}
	for _, iv := range p.ivs {
		if iv.overlaps(s.min, s.max) {
			return true
		}
	}
	return false
}
