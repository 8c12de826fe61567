package flightsrv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
)

// Prepared statements are stateless: the handle holds the SQL text and, once the client has
// bound them through DoPut, the parameter values (as an Arrow IPC stream). Any flightd process
// can execute a handle and closing one frees nothing. Each execution re-plans, so a prepared
// query sees the table versions current at execution time, as a database user expects.

// preparedHandle is the content of a handle.
type preparedHandle struct {
	sql    string
	params []byte // Arrow IPC stream of one row of parameter values; nil when none are bound
}

// encodeHandle: sql length uvarint | sql | params.
func (s *Server) encodeHandle(h preparedHandle) []byte {
	b := binary.AppendUvarint(nil, uint64(len(h.sql)))
	b = append(b, h.sql...)
	return s.tickets.encode(kindHandle, append(b, h.params...), 0)
}

func (s *Server) decodeHandle(b []byte) (preparedHandle, error) {
	payload, err := s.tickets.decode(kindHandle, b)
	if err != nil {
		return preparedHandle{}, err
	}
	n, used := binary.Uvarint(payload)
	if used <= 0 || n > uint64(len(payload)-used) {
		return preparedHandle{}, dberr.New(dberr.InvalidInput, "invalid prepared statement handle")
	}
	end := used + int(n)
	h := preparedHandle{sql: string(payload[used:end])}
	if end < len(payload) {
		h.params = payload[end:]
	}
	return h, nil
}

// CreatePreparedStatement plans the statement once to report its result schema (JDBC shows
// no rows without a dataset schema) and its parameter schema (JDBC takes the number and types
// of parameters from it), and returns a handle holding the SQL text.
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	p, err := s.planner.PlanSQL(ctx, req.GetQuery())
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	params := p.Params
	if params == nil {
		params = arrow.NewSchema(nil, nil)
	}
	return flightsql.ActionCreatePreparedStatementResult{
		Handle:          s.encodeHandle(preparedHandle{sql: req.GetQuery()}),
		DatasetSchema:   p.Schema,
		ParameterSchema: params,
	}, nil
}

// ClosePreparedStatement checks the handle; there is nothing to free.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	_, err := s.decodeHandle(req.GetPreparedStatementHandle())
	return err
}

// DoPutPreparedStatementQuery binds parameter values: it reads the client's parameter batch
// and returns a new handle that carries the statement and its values.
func (s *Server) DoPutPreparedStatementQuery(_ context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	h, err := s.decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rdr.Schema()), ipc.WithAllocator(s.env.Mem))
	rows := int64(0)
	for rdr.Next() {
		b := rdr.RecordBatch()
		rows += b.NumRows()
		if rows > 1 {
			w.Close()
			return nil, dberr.NotSupported("binding more than one row of parameters to a query (executemany of a query)")
		}
		if err := w.Write(b); err != nil {
			w.Close()
			return nil, fmt.Errorf("bind parameters: %w", err)
		}
	}
	if err := rdr.Err(); err != nil {
		w.Close()
		return nil, fmt.Errorf("bind parameters: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("bind parameters: %w", err)
	}
	if rows == 1 {
		h.params = buf.Bytes()
	}
	return s.encodeHandle(h), nil
}

// planPrepared plans the statement a handle holds with its bound parameter values.
func (s *Server) planPrepared(ctx context.Context, handle []byte) (*planner.Prepared, error) {
	h, err := s.decodeHandle(handle)
	if err != nil {
		return nil, err
	}
	noteSQL(ctx, h.sql)
	if h.params == nil {
		p, err := s.planner.PlanSQL(ctx, h.sql)
		if err != nil {
			return nil, err
		}
		if p.Substrait == nil && p.Write == nil {
			return nil, dberr.New(dberr.InvalidInput, "the statement has %d parameter(s): bind values before executing it", p.Params.NumFields())
		}
		return p, nil
	}
	values, err := s.paramValues(h.params)
	if err != nil {
		return nil, err
	}
	return s.planner.PlanSQLWithParams(ctx, h.sql, values)
}

// paramValues decodes the one row of parameter values a handle carries.
func (*Server) paramValues(ipcBytes []byte) ([]scalar.Scalar, error) {
	// The Go allocator on purpose: the scalars may share the decoded buffers and end up as
	// literals in a plan, which nobody releases; parameters are tiny and the GC frees them.
	rdr, err := ipc.NewReader(bytes.NewReader(ipcBytes), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, dberr.Wrap(dberr.InvalidInput, err, "invalid parameters in handle")
	}
	defer rdr.Release()
	if !rdr.Next() || rdr.RecordBatch().NumRows() != 1 {
		return nil, dberr.New(dberr.InvalidInput, "invalid parameters in handle: want one row")
	}
	b := rdr.RecordBatch()
	values := make([]scalar.Scalar, b.NumCols())
	for i, col := range b.Columns() {
		v, err := scalar.GetScalar(col, 0)
		if err != nil {
			return nil, dberr.Wrap(dberr.InvalidInput, err, "parameter %d", i+1)
		}
		values[i] = v
	}
	return values, nil
}

// GetFlightInfoPreparedStatement plans a prepared statement's execution.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.planPrepared(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	if p.IsWrite { // update.go
		return s.flightInfoWrite(ctx, p, desc)
	}
	return s.flightInfo(ctx, p, desc)
}

// GetSchemaPreparedStatement returns a prepared statement's result schema.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	h, err := s.decodeHandle(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	p, err := s.planner.PlanSQL(ctx, h.sql)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: s.schemaBytes(p.Schema)}, nil
}

// DoGetPreparedStatement runs a prepared statement directly (clients that use the command
// itself as the ticket).
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	p, err := s.planPrepared(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	if p.IsWrite { // update.go
		return s.doGetWrite(ctx, p)
	}
	op, err := s.run(ctx, ticketPayload{Analyze: p.Analyze, Plan: p.Substrait})
	if err != nil {
		return nil, nil, err
	}
	return op.Schema(), s.stream(ctx, op), nil
}
