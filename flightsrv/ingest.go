package flightsrv

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
)

// Bulk ingestion (ADBC adbc_ingest, arrow-go ExecuteIngest) writes the client's stream into a
// table through the catalog's commit path: one new table version per ingest.
//
// The stream is held in memory until it is committed (the Lance writer writes a data file in
// one piece); its size is bounded by maxIngestBytes.

const maxIngestBytes = 1 << 30

// ingestPlan is what an ingest must do given whether the table exists.
type ingestPlan int

const (
	ingestCreate ingestPlan = iota
	ingestAppend
	ingestReplace
)

// planIngest applies the command's table definition options; unspecified options fail, as
// the Flight SQL specification says.
func planIngest(opts *flightsql.TableDefinitionOptions, exists bool, name string) (ingestPlan, error) {
	if !exists {
		if opts.GetIfNotExist() == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_CREATE {
			return ingestCreate, nil
		}
		return 0, fmt.Errorf("ingest into %q: %w", name, catalog.ErrNoSuchTable)
	}
	switch opts.GetIfExists() {
	case pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_APPEND:
		return ingestAppend, nil
	case pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_REPLACE:
		return ingestReplace, nil
	default:
		return 0, fmt.Errorf("ingest into %q: %w", name, catalog.ErrTableExists)
	}
}

// DoPutCommandStatementIngest writes the stream into a table and returns the rows written.
func (s *Server) DoPutCommandStatementIngest(ctx context.Context, cmd flightsql.StatementIngest, rdr flight.MessageReader) (int64, error) {
	w, ok := s.cat.(catalog.Writer)
	if !ok {
		return 0, dberr.NotSupported("ingest: this catalog is read-only")
	}
	if err := checkIngestTarget(cmd); err != nil {
		return 0, err
	}
	name := cmd.GetTable()
	_, err := s.cat.LoadTable(ctx, name, latest)
	exists := err == nil
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
		return 0, err
	}
	what, err := planIngest(cmd.GetTableDefinitionOptions(), exists, name)
	if err != nil {
		return 0, err
	}
	batches, rows, err := readAll(rdr)
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if err != nil {
		return 0, err
	}
	switch what {
	case ingestAppend:
		_, err = w.Append(ctx, name, batches)
	case ingestReplace:
		_, err = w.CreateTable(ctx, name, rdr.Schema(), batches, catalog.CreateOrReplace)
	default:
		_, err = w.CreateTable(ctx, name, rdr.Schema(), batches, catalog.CreateNew)
	}
	if err != nil {
		return 0, err
	}
	s.log.Info("ingested", "table", name, "rows", rows, "user", UserFromContext(ctx))
	return rows, nil
}

// checkIngestTarget refuses what flightd cannot do: temporary tables, transactions, and
// catalogs or schemas other than its own.
func checkIngestTarget(cmd flightsql.StatementIngest) error {
	switch {
	case cmd.GetTemporary():
		return dberr.NotSupported("ingest into a temporary table")
	case len(cmd.GetTransactionId()) > 0:
		return dberr.NotSupported("transactions")
	case cmd.GetCatalog() != "" && cmd.GetCatalog() != CatalogName:
		return fmt.Errorf("ingest into catalog %q: %w", cmd.GetCatalog(), catalog.ErrNoSuchTable)
	case cmd.GetSchema() != "" && cmd.GetSchema() != SchemaName:
		return fmt.Errorf("ingest into schema %q: %w", cmd.GetSchema(), catalog.ErrNoSuchTable)
	case !validTableName(cmd.GetTable()):
		return dberr.New(dberr.InvalidInput, "ingest: invalid table name %q", cmd.GetTable())
	}
	return nil
}

// validTableName accepts names that make a folder "<name>.lance" directly under the root.
func validTableName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return false
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r == 0 {
			return false
		}
	}
	return true
}

// readAll reads the whole stream (retaining each batch, the caller releases them), bounded
// by maxIngestBytes.
func readAll(rdr flight.MessageReader) ([]arrow.RecordBatch, int64, error) {
	var (
		batches []arrow.RecordBatch
		rows    int64
		size    int64
	)
	for rdr.Next() {
		b := rdr.RecordBatch()
		size += batchBytes(b)
		if size > maxIngestBytes {
			return batches, 0, dberr.New(dberr.OutOfMemory, "ingest: the stream is larger than %d bytes; split it into several ingests", maxIngestBytes)
		}
		b.Retain()
		batches = append(batches, b)
		rows += b.NumRows()
	}
	if err := rdr.Err(); err != nil {
		return batches, 0, fmt.Errorf("ingest: read stream: %w", err)
	}
	return batches, rows, nil
}
