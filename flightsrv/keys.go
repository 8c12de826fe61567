package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// Lance tables have no primary or foreign keys (an unenforced primary key is metadata only),
// so the key commands answer with empty results in the exact reference schemas: JDBC's
// DatabaseMetaData (what DBeaver's navigator calls) needs an answer, not an error.

func (s *Server) empty(ctx context.Context, sc *arrow.Schema) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.oneBatch(ctx, sc, func(*array.RecordBuilder) error { return nil })
}

// GetFlightInfoPrimaryKeys describes a table's primary keys.
func (s *Server) GetFlightInfoPrimaryKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.PrimaryKeys, desc), nil
}

// DoGetPrimaryKeys returns no keys.
func (s *Server) DoGetPrimaryKeys(ctx context.Context, _ flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.empty(ctx, schema_ref.PrimaryKeys)
}

// GetFlightInfoExportedKeys describes the foreign keys that reference a table.
func (s *Server) GetFlightInfoExportedKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.ExportedKeys, desc), nil
}

// DoGetExportedKeys returns no keys.
func (s *Server) DoGetExportedKeys(ctx context.Context, _ flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.empty(ctx, schema_ref.ExportedKeys)
}

// GetFlightInfoImportedKeys describes a table's foreign keys.
func (s *Server) GetFlightInfoImportedKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.ImportedKeys, desc), nil
}

// DoGetImportedKeys returns no keys.
func (s *Server) DoGetImportedKeys(ctx context.Context, _ flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.empty(ctx, schema_ref.ImportedKeys)
}

// GetFlightInfoCrossReference describes the foreign keys between two tables.
func (s *Server) GetFlightInfoCrossReference(_ context.Context, _ flightsql.CrossTableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.metadataInfo(schema_ref.CrossReference, desc), nil
}

// DoGetCrossReference returns no keys.
func (s *Server) DoGetCrossReference(ctx context.Context, _ flightsql.CrossTableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return s.empty(ctx, schema_ref.CrossReference)
}
