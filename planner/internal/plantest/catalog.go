// Package plantest provides an in-memory catalog.Catalog of schemas only, for planner
// tests: tables have versions, tags and commit times but no data.
package plantest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/catalog"
)

// Version is one version of a fake table.
type Version struct {
	Schema    *arrow.Schema
	Committed time.Time
	Tags      []string
}

// Catalog is a fake catalog.Catalog. Tables maps a name to its versions; version n is
// Tables[name][n-1].
type Catalog struct {
	Tables map[string][]Version
}

// ListTables implements catalog.Catalog.
func (c *Catalog) ListTables(context.Context) ([]string, error) {
	names := make([]string, 0, len(c.Tables))
	for n := range c.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// LoadTable implements catalog.Catalog.
func (c *Catalog) LoadTable(_ context.Context, name string, at catalog.VersionRef) (catalog.Table, error) {
	versions, ok := c.Tables[name]
	if !ok || len(versions) == 0 {
		return nil, fmt.Errorf("load table %q: %w", name, catalog.ErrNoSuchTable)
	}
	v, err := pick(versions, at)
	if err != nil {
		return nil, fmt.Errorf("load table %q at %s: %w", name, at, err)
	}
	return &Table{name: name, version: v, schema: versions[v-1].Schema}, nil
}

func pick(versions []Version, at catalog.VersionRef) (uint64, error) {
	switch {
	case at.Version != 0:
		if at.Version > uint64(len(versions)) {
			return 0, catalog.ErrNoSuchVersion
		}
		return at.Version, nil
	case at.Tag != "":
		for i, v := range versions {
			for _, t := range v.Tags {
				if t == at.Tag {
					return uint64(i + 1), nil
				}
			}
		}
		return 0, catalog.ErrNoSuchVersion
	case !at.Timestamp.IsZero():
		for i := len(versions) - 1; i >= 0; i-- {
			if !versions[i].Committed.After(at.Timestamp) {
				return uint64(i + 1), nil
			}
		}
		return 0, catalog.ErrNoSuchVersion
	}
	return uint64(len(versions)), nil
}

// Table is a fake catalog.Table with a schema and no rows.
type Table struct {
	name    string
	version uint64
	schema  *arrow.Schema
}

// NewTable returns a fake table snapshot.
func NewTable(name string, version uint64, schema *arrow.Schema) *Table {
	return &Table{name: name, version: version, schema: schema}
}

// ErrNoData is returned by Morsels and Scan: fake tables hold no rows.
var ErrNoData = errors.New("plantest tables hold no data")

// Name implements catalog.Table.
func (t *Table) Name() string { return t.name }

// Version implements catalog.Table.
func (t *Table) Version() uint64 { return t.version }

// Schema implements catalog.Table.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// Stats implements catalog.Table.
func (t *Table) Stats() catalog.Stats { return catalog.Stats{Rows: 0} }

// Morsels implements catalog.Table.
func (t *Table) Morsels(context.Context, catalog.ScanRequest) ([]catalog.Morsel, error) {
	return nil, ErrNoData
}

// Scan implements catalog.Table.
func (t *Table) Scan(context.Context, catalog.ScanRequest, catalog.Morsel, memory.Allocator) (catalog.RecordReader, error) {
	return nil, ErrNoData
}

// Standard returns the catalog most planner tests use:
//
//	t      versions 1..3 (tag "prod" on 2, committed 2026-01-0{1,2,3}):
//	       id int64 NOT NULL, name utf8, score float64, qty int32, day date32, ts timestamp[us]
//	       (version 1 lacks ts)
//	Mixed  one version: "Id" int64, "id2" int16, amount decimal(10,2), u uint32, flag bool
//	wide   one version, Lance-like types: id uint64, emb fixed_size_list<float32,4>,
//	       label large_utf8, tag dictionary<int32,utf8>, half float16, meta struct<k,v>,
//	       kv map<utf8,int32>
//	u      one version: id int64 NOT NULL, t_id int64, name utf8, amount float64 (for joins)
func Standard() *Catalog {
	base := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}
	full := append(append([]arrow.Field{}, base...), arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true})
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	return &Catalog{Tables: map[string][]Version{
		"t": {
			{Schema: arrow.NewSchema(base, nil), Committed: day(1)},
			{Schema: arrow.NewSchema(full, nil), Committed: day(2), Tags: []string{"prod"}},
			{Schema: arrow.NewSchema(full, nil), Committed: day(3)},
		},
		"wide": {{Schema: arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Uint64},
			{Name: "emb", Type: arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32), Nullable: true},
			{Name: "label", Type: arrow.BinaryTypes.LargeString, Nullable: true},
			{Name: "tag", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
			{Name: "half", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
			{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "k", Type: arrow.BinaryTypes.String}, arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64}), Nullable: true},
			{Name: "kv", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
		}, nil), Committed: day(1)}},
		"u": {{Schema: arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "t_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		}, nil), Committed: day(1)}},
		"Mixed": {{Schema: arrow.NewSchema([]arrow.Field{
			{Name: "Id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "id2", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
			{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
			{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
			{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		}, nil), Committed: day(1)}},
	}}
}

// SchemaString renders a schema on one line: "id int64, name utf8 null".
func SchemaString(s *arrow.Schema) string {
	parts := make([]string, len(s.Fields()))
	for i, f := range s.Fields() {
		parts[i] = f.Name + " " + f.Type.String()
		if f.Nullable {
			parts[i] += " null"
		}
	}
	return "schema: " + strings.Join(parts, ", ")
}
