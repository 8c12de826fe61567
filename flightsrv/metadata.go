package flightsrv

import (
	"context"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// Metadata commands: every one answers with the Flight SQL reference schema exactly (ADBC
// compares schemas strictly) and uses the command itself as the ticket.

// metadataInfo is the FlightInfo of a metadata command.
func (s *Server) metadataInfo(sc *arrow.Schema, desc *flight.FlightDescriptor) *flight.FlightInfo {
	return &flight.FlightInfo{
		Schema:           s.schemaBytes(sc),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// oneBatch streams a single batch built by fill, which appends rows to the builder.
func (s *Server) oneBatch(ctx context.Context, sc *arrow.Schema, fill func(b *array.RecordBuilder) error) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.env.Mem, sc)
	defer b.Release()
	if err := fill(b); err != nil {
		return nil, nil, err
	}
	batch := b.NewRecordBatch()
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: batch}
	close(ch)
	return sc, ch, nil
}

// GetFlightInfoCatalogs describes the catalog list.
func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.Catalogs, desc), nil
}

// DoGetCatalogs lists flightd's single catalog.
func (s *Server) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.oneBatch(ctx, schema_ref.Catalogs, func(b *array.RecordBuilder) error {
		b.Field(0).(*array.StringBuilder).Append(CatalogName)
		return nil
	})
}

// GetFlightInfoSchemas describes the schema list.
func (s *Server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.DBSchemas, desc), nil
}

// DoGetDBSchemas lists flightd's single schema if it passes the filters.
func (s *Server) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.oneBatch(ctx, schema_ref.DBSchemas, func(b *array.RecordBuilder) error {
		if matchCatalog(cmd.GetCatalog()) && matchPattern(cmd.GetDBSchemaFilterPattern(), SchemaName) {
			b.Field(0).(*array.StringBuilder).Append(CatalogName)
			b.Field(1).(*array.StringBuilder).Append(SchemaName)
		}
		return nil
	})
}

// GetFlightInfoTables describes the table list, with or without table schemas.
func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(tablesSchema(cmd), desc), nil
}

func tablesSchema(cmd flightsql.GetTables) *arrow.Schema {
	if cmd.GetIncludeSchema() {
		return schema_ref.TablesWithIncludedSchema
	}
	return schema_ref.Tables
}

// DoGetTables lists the tables that pass the filters.
func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	sc := tablesSchema(cmd)
	return s.oneBatch(ctx, sc, func(b *array.RecordBuilder) error {
		if !matchCatalog(cmd.GetCatalog()) || !matchPattern(cmd.GetDBSchemaFilterPattern(), SchemaName) ||
			!matchTableType(cmd.GetTableTypes()) {
			return nil
		}
		names, err := s.cat.ListTables(ctx)
		if err != nil {
			return err
		}
		for _, name := range names {
			if !matchPattern(cmd.GetTableNameFilterPattern(), name) {
				continue
			}
			if err := s.appendTable(ctx, b, name, cmd.GetIncludeSchema()); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *Server) appendTable(ctx context.Context, b *array.RecordBuilder, name string, withSchema bool) error {
	b.Field(0).(*array.StringBuilder).Append(CatalogName)
	b.Field(1).(*array.StringBuilder).Append(SchemaName)
	b.Field(2).(*array.StringBuilder).Append(name)
	b.Field(3).(*array.StringBuilder).Append(tableType)
	if !withSchema {
		return nil
	}
	t, err := s.cat.LoadTable(ctx, name, latest)
	if err != nil {
		return err
	}
	b.Field(4).(*array.BinaryBuilder).Append(s.schemaBytes(t.Schema()))
	return nil
}

const tableType = "TABLE"

// GetFlightInfoTableTypes describes the table type list.
func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.TableTypes, desc), nil
}

// DoGetTableTypes lists the one table type flightd has.
func (s *Server) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.oneBatch(ctx, schema_ref.TableTypes, func(b *array.RecordBuilder) error {
		b.Field(0).(*array.StringBuilder).Append(tableType)
		return nil
	})
}

func matchCatalog(c *string) bool { return c == nil || *c == "" || *c == CatalogName }

func matchTableType(types []string) bool {
	if len(types) == 0 {
		return true
	}
	for _, t := range types {
		if strings.EqualFold(t, tableType) {
			return true
		}
	}
	return false
}

// matchPattern applies a Flight SQL filter pattern (SQL LIKE syntax: % and _, backslash
// escapes) to s. A nil pattern matches everything.
func matchPattern(pattern *string, s string) bool {
	if pattern == nil {
		return true
	}
	return likeRegexp(*pattern).MatchString(s)
}

func likeRegexp(p string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^(?s:")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
			} else {
				sb.WriteString(`\\`)
			}
		default:
			sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	sb.WriteString(")$")
	return regexp.MustCompile(sb.String())
}
