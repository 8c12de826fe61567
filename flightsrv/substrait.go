package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
)

// Substrait versions flightd accepts (SqlInfo 6 and 7). The consumer is built on the
// v0.85 protobuf and also reads older plans that declare extensions by URI only.
const (
	substraitMinVersion = "0.20.0"
	substraitMaxVersion = "0.85.0"
)

// planSubstrait consumes a client's Substrait plan (CommandStatementSubstraitPlan) and
// re-produces it with every table read pinned to a version.
func (s *Server) planSubstrait(ctx context.Context, cmd flightsql.StatementSubstraitPlan) (*planner.Prepared, error) {
	if len(cmd.GetTransactionId()) > 0 {
		return nil, dberr.NotSupported("transactions")
	}
	sp := cmd.GetPlan()
	if len(sp.Plan) == 0 {
		return nil, dberr.New(dberr.InvalidInput, "invalid Substrait plan: empty")
	}
	return s.planner.PlanSubstrait(ctx, sp.Plan)
}

// GetFlightInfoSubstraitPlan plans a client's Substrait plan: its tickets carry the plan
// re-produced with pinned table versions, run like an SQL statement's.
func (s *Server) GetFlightInfoSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := s.planSubstrait(ctx, cmd)
	if err != nil {
		return nil, err
	}
	s.log.Debug("planned Substrait statement", "bytes", len(cmd.GetPlan().Plan), "version", cmd.GetPlan().Version)
	return s.flightInfo(ctx, p, desc)
}

// GetSchemaSubstraitPlan returns the result schema of a client's Substrait plan without
// running it.
func (s *Server) GetSchemaSubstraitPlan(ctx context.Context, cmd flightsql.StatementSubstraitPlan, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := s.planSubstrait(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: s.schemaBytes(p.Schema)}, nil
}

// ExecuteSubstrait plans and starts a client's serialized Substrait plan without going
// through the network, exactly as a CommandStatementSubstraitPlan would run. The caller
// drains and closes the returned operator.
func (s *Server) ExecuteSubstrait(ctx context.Context, substraitPlan []byte) (exec.Operator, error) {
	p, err := s.planSubstrait(ctx, substraitPlanCmd{flightsql.SubstraitPlan{Plan: substraitPlan}})
	if err != nil {
		return nil, err
	}
	return s.run(ctx, ticketPayload{Plan: p.Substrait})
}

// substraitPlanCmd is a StatementSubstraitPlan outside any transaction.
type substraitPlanCmd struct{ plan flightsql.SubstraitPlan }

func (c substraitPlanCmd) GetTransactionId() []byte         { return nil }
func (c substraitPlanCmd) GetPlan() flightsql.SubstraitPlan { return c.plan }
