package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/plan"
)

// flightInfo builds the FlightInfo of a planned statement: its schema and its endpoints,
// whose tickets carry the pinned Substrait plan and a new query id.
func (s *Server) flightInfo(ctx context.Context, p *planner.Prepared, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfoOf(ctx, p, planExtras{}, desc)
}

// planExtras is what the plan cache (plancache.go) adds to a planned statement.
type planExtras struct {
	optimized plan.Node       // a cached plan's optimized plan, run in place of p.Logical
	schema    []byte          // the cached serialized schema
	fill      func(plan.Node) // caches the plan, given p.Logical optimized (a miss)
}

// flightInfoOf is flightInfo with what the plan cache adds.
func (s *Server) flightInfoOf(ctx context.Context, p *planner.Prepared, x planExtras, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	id := newQueryID()
	noteQuery(ctx, id)
	eps, handles, err := s.endpoints(ctx, p, x.optimized, id)
	if err != nil {
		return nil, err
	}
	started := false
	if s.spec != nil && len(eps) == 1 && len(s.locations) == 0 { // speculate.go
		tp := ticketPayload{Shard: plan.Shard{Index: 0, Count: 1}, Analyze: p.Analyze, Query: id, Plan: p.Substrait}
		if x.optimized != nil {
			started = s.spec.start(ctx, s, tp, handles[0], x.optimized, true, nil)
		} else {
			started = s.spec.start(ctx, s, tp, handles[0], p.Logical, false, x.fill)
		}
	}
	if x.fill != nil && !started {
		x.fill(planner.Optimize(p.Logical))
	}
	if x.schema == nil {
		x.schema = s.schemaBytes(p.Schema)
	}
	return &flight.FlightInfo{
		Schema:           x.schema,
		FlightDescriptor: desc,
		Endpoint:         eps,
		TotalRecords:     -1,
		TotalBytes:       -1,
	}, nil
}

// statementTicket wraps flightd's ticket bytes in Flight SQL's TicketStatementQuery.
func statementTicket(b []byte) ([]byte, error) {
	return flightsql.CreateStatementQueryTicket(b)
}

// GetFlightInfoStatement plans an ad-hoc SQL query.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	noteSQL(ctx, cmd.GetQuery())
	if key, ok := planCacheKey(ctx, cmd.GetQuery()); ok && s.plans != nil { // plancache.go
		e, p, fill, err := s.planCached(ctx, key, cmd.GetQuery())
		switch {
		case err != nil:
			return nil, err
		case e != nil:
			return s.flightInfoOf(ctx, e.prepared, planExtras{optimized: e.optimized, schema: e.schema}, desc)
		case !p.IsWrite:
			return s.flightInfoOf(ctx, p, planExtras{fill: fill}, desc)
		}
	}
	p, err := s.planner.PlanSQL(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	if p.IsWrite { // update.go
		return s.flightInfoWrite(ctx, p, desc)
	}
	return s.flightInfo(ctx, p, desc)
}

// GetSchemaStatement returns the result schema of an ad-hoc SQL query without running it.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := s.planner.PlanSQL(ctx, cmd.GetQuery())
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: s.schemaBytes(p.Schema)}, nil
}

// DoGetStatement runs the plan a statement ticket carries and streams its batches. flightd's
// own DoGet (doget.go) serves statement tickets; this is the router's path.
func (s *Server) DoGetStatement(ctx context.Context, t flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	tp, err := s.statementPayload(t.GetStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	op, err := s.run(ctx, tp)
	if err != nil {
		return nil, nil, err
	}
	return op.Schema(), s.stream(ctx, op), nil
}
