package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/plan"
)

// Prepared statements are stateless: the handle holds the SQL text, so any flightd process can
// execute it and closing it frees nothing. Each execution re-plans, so a prepared query sees the
// latest table versions at execution time, as a database user expects.

// CreatePreparedStatement plans the statement once to report its result schema (JDBC shows
// no rows without a dataset schema) and returns a handle holding the SQL text.
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	p, err := s.planner.PlanSQL(ctx, req.GetQuery())
	if err != nil {
		return flightsql.ActionCreatePreparedStatementResult{}, err
	}
	return flightsql.ActionCreatePreparedStatementResult{
		Handle:          s.tickets.encode(kindHandle, []byte(req.GetQuery()), 0),
		DatasetSchema:   p.Schema,
		ParameterSchema: arrow.NewSchema(nil, nil),
	}, nil
}

// ClosePreparedStatement checks the handle; there is nothing to free.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	_, err := s.tickets.decode(kindHandle, req.GetPreparedStatementHandle())
	return err
}

// planPrepared re-plans the SQL a handle holds.
func (s *Server) planPrepared(ctx context.Context, handle []byte) (*planner.Prepared, error) {
	sql, err := s.tickets.decode(kindHandle, handle)
	if err != nil {
		return nil, err
	}
	return s.planner.PlanSQL(ctx, string(sql))
}

// GetFlightInfoPreparedStatement plans a prepared statement's execution.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.planPrepared(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	return s.flightInfo(ctx, p, desc)
}

// GetSchemaPreparedStatement returns a prepared statement's result schema.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := s.planPrepared(ctx, cmd.GetPreparedStatementHandle())
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
	op, err := s.run(ctx, p.Substrait, plan.Shard{})
	if err != nil {
		return nil, nil, err
	}
	return op.Schema(), s.stream(ctx, op), nil
}
