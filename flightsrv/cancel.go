package flightsrv

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/flightd/flightd/internal/dberr"
)

// CancelFlightInfo cancels a statement: the running DoGet streams of its tickets on this
// server end with CANCELLED, and later DoGets of them here are refused. The deprecated
// CancelQuery action is routed here by arrow-go. A FlightInfo whose tickets are not statement
// tickets (metadata results) is NOT_CANCELLABLE; one with a ticket flightd did not issue is
// an INVALID_ARGUMENT error.
func (s *Server) CancelFlightInfo(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	eps := req.GetInfo().GetEndpoint()
	if len(eps) == 0 {
		return flight.CancelFlightInfoResult{}, dberr.New(dberr.InvalidInput, "CancelFlightInfo: the FlightInfo has no endpoints")
	}
	ids := map[queryID]bool{}
	for _, ep := range eps {
		id, ok, err := s.ticketQueryID(ep.GetTicket().GetTicket())
		if err != nil {
			return flight.CancelFlightInfoResult{}, err
		}
		if ok {
			ids[id] = true
		}
	}
	if len(ids) == 0 {
		return flight.CancelFlightInfoResult{Status: flight.CancelStatusNotCancellable}, nil
	}
	for id := range ids {
		n := s.queries.cancelQuery(id)
		if s.spec != nil {
			s.spec.cancelQuery(id)
		}
		noteQuery(ctx, id)
		s.log.Info("query cancelled", "query_id", id.String(), "streams", n)
	}
	return flight.CancelFlightInfoResult{Status: flight.CancelStatusCancelled}, nil
}

// ticketQueryID returns the query id a statement ticket carries; ok is false for tickets
// that are not statement tickets or carry no id.
func (s *Server) ticketQueryID(ticket []byte) (queryID, bool, error) {
	var msg anypb.Any
	var cmd pb.TicketStatementQuery
	if proto.Unmarshal(ticket, &msg) != nil || !msg.MessageIs(&cmd) {
		return queryID{}, false, nil
	}
	if err := msg.UnmarshalTo(&cmd); err != nil {
		return queryID{}, false, dberr.Wrap(dberr.InvalidInput, err, "invalid ticket")
	}
	tp, err := s.statementPayload(cmd.GetStatementHandle())
	if err != nil {
		return queryID{}, false, err
	}
	return tp.Query, !tp.Query.isZero(), nil
}

// statementPayload checks and opens the bytes of a statement ticket.
func (s *Server) statementPayload(handle []byte) (ticketPayload, error) {
	payload, err := s.tickets.decode(kindPlan, handle)
	if err != nil {
		return ticketPayload{}, err
	}
	return decodeTicketPayload(payload)
}

// forceStopAfter is how long Drain waits for cancelled streams to end before it closes the
// connections.
const forceStopAfter = 2 * time.Second

// Drain shuts fs (made by NewFlightServer or Listen) down gracefully: it stops accepting
// connections and calls at once, lets running calls finish for up to timeout, then cancels
// the DoGet streams still running (their clients get UNAVAILABLE "server shutting down") and,
// when calls are still running a moment later (a client that stopped reading), closes every
// connection. It returns the number of streams it cancelled.
func (s *Server) Drain(fs flight.Server, timeout time.Duration) int {
	done := make(chan struct{})
	go func() {
		fs.Shutdown()
		close(done)
	}()
	select {
	case <-done:
		return 0
	case <-time.After(timeout):
	}
	n := s.queries.cancelAll(ErrShuttingDown)
	s.log.Warn("shutdown timeout: cancelling running streams", "streams", n, "timeout", timeout)
	select {
	case <-done:
	case <-time.After(forceStopAfter):
		if st, ok := fs.(interface{ Stop() }); ok {
			s.log.Warn("shutdown: closing connections of calls that did not end")
			st.Stop()
		}
		<-done
	}
	return n
}
