package flightsrv

import (
	"context"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/plan"
)

// A query whose plan is a chain of projections and filters over one scan can be fetched
// through several endpoints: each ticket carries the same plan and a shard of the table's
// morsels, and the union of the shards' results is the query's result. Other plans (sorts,
// aggregates, limits, joins) get one endpoint.

// endpoints returns the endpoints of a planned query: up to s.maxEndpoints shards when the
// plan allows it, spread over the configured locations. Every ticket carries the query id.
// optimized, when set, is p's optimized plan (a cached plan, plancache.go). handles are
// the endpoints' signed statement handles (what their tickets wrap).
func (s *Server) endpoints(ctx context.Context, p *planner.Prepared, optimized plan.Node, id queryID) (eps []*flight.FlightEndpoint, handles [][]byte, err error) {
	n, err := s.shardCount(ctx, p, optimized)
	if err != nil {
		return nil, nil, err
	}
	eps, handles = make([]*flight.FlightEndpoint, n), make([][]byte, n)
	for i := range n {
		payload := ticketPayload{Shard: plan.Shard{Index: i, Count: n}, Analyze: p.Analyze, Query: id, Plan: p.Substrait}.encode()
		handles[i] = s.tickets.encode(kindPlan, payload, ticketTTL)
		ticket, err := statementTicket(handles[i])
		if err != nil {
			return nil, nil, err
		}
		eps[i] = &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: ticket}}
		if len(s.locations) > 0 {
			eps[i].Location = []*flight.Location{{Uri: s.locations[i%len(s.locations)]}}
		}
	}
	return eps, handles, nil
}

// shardCount decides how many endpoints a query gets. optimized, when set, is p's
// optimized plan.
func (s *Server) shardCount(ctx context.Context, p *planner.Prepared, optimized plan.Node) (int, error) {
	if s.maxEndpoints <= 1 || p.Analyze {
		return 1, nil
	}
	if optimized == nil {
		node, err := s.planner.Logical(ctx, p.Substrait)
		if err != nil {
			return 0, err
		}
		optimized = planner.Optimize(node)
	}
	scan := shardableScan(optimized)
	if scan == nil {
		return 1, nil
	}
	morsels, err := scan.Table.Morsels(ctx, catalog.ScanRequest{Columns: scan.Columns, Limit: -1})
	if err != nil {
		return 0, err
	}
	return max(1, min(len(morsels), s.maxEndpoints)), nil
}

// shardableScan returns the scan at the bottom of a Project/Filter chain without a limit, or nil.
func shardableScan(n plan.Node) *plan.Scan {
	for {
		switch x := n.(type) {
		case *plan.Project:
			n = x.Input
		case *plan.Filter:
			n = x.Input
		case *plan.Scan:
			if x.Limit >= 0 {
				return nil
			}
			return x
		default:
			return nil
		}
	}
}

// withShard returns n with its shardable scan restricted to sh; n itself is not modified.
func withShard(n plan.Node, sh plan.Shard) (plan.Node, error) {
	switch x := n.(type) {
	case *plan.Project:
		in, err := withShard(x.Input, sh)
		cp := *x
		cp.Input = in
		return &cp, err
	case *plan.Filter:
		in, err := withShard(x.Input, sh)
		cp := *x
		cp.Input = in
		return &cp, err
	case *plan.Scan:
		if x.Limit < 0 {
			cp := *x
			cp.Shard = sh
			return &cp, nil
		}
	}
	return nil, dberr.New(dberr.InvalidInput, "invalid ticket: shard %d/%d of a plan that cannot be sharded", sh.Index, sh.Count)
}

// ticketPayload is what a statement ticket carries besides flightd's envelope (ticket.go).
type ticketPayload struct {
	Shard   plan.Shard
	Analyze bool    // EXPLAIN ANALYZE: run Plan and return its profile
	Query   queryID // the statement's id (logs, CancelFlightInfo); zero in tickets without one
	Plan    []byte  // Substrait, table versions pinned
}

// Flags of the payload's flags byte.
const (
	flagAnalyze byte = 1 << iota // Analyze is set
	flagQueryID                  // a 16-byte query id follows the flags byte
	knownFlags  = flagAnalyze | flagQueryID
)

// encode lays the payload out as: shard index uvarint | shard count uvarint | flags u8 |
// [query id, 16 bytes, when flagQueryID] | plan. Decoders that predate a flag refuse it.
func (tp ticketPayload) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(tp.Shard.Index))
	b = binary.AppendUvarint(b, uint64(tp.Shard.Count))
	var flags byte
	if tp.Analyze {
		flags |= flagAnalyze
	}
	if !tp.Query.isZero() {
		flags |= flagQueryID
	}
	b = append(b, flags)
	if flags&flagQueryID != 0 {
		b = append(b, tp.Query[:]...)
	}
	return append(b, tp.Plan...)
}

// decodeTicketPayload opens what encode made.
func decodeTicketPayload(b []byte) (ticketPayload, error) {
	bad := dberr.New(dberr.InvalidInput, "invalid ticket: payload")
	idx, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return ticketPayload{}, bad
	}
	cnt, n2 := binary.Uvarint(b[n1:])
	if n2 <= 0 || cnt > 1<<20 || (cnt > 0 && idx >= cnt) || len(b) < n1+n2+1 {
		return ticketPayload{}, bad
	}
	flags := b[n1+n2]
	if flags&^knownFlags != 0 {
		return ticketPayload{}, bad
	}
	tp := ticketPayload{Shard: plan.Shard{Index: int(idx), Count: int(cnt)}, Analyze: flags&flagAnalyze != 0}
	rest := b[n1+n2+1:]
	if flags&flagQueryID != 0 {
		if len(rest) < len(tp.Query) {
			return ticketPayload{}, bad
		}
		copy(tp.Query[:], rest)
		rest = rest[len(tp.Query):]
	}
	tp.Plan = rest
	return tp, nil
}
