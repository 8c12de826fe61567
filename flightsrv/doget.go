package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// flightService is the Flight SQL router with flightd's own DoGet for statement tickets.
// arrow-go's router (v18.8.0) does not release the batch it was writing when the write
// fails, which is what happens whenever a client closes a stream early (DBeaver's preview
// reads 200 rows and hangs up): every such query leaked one batch. Statement tickets (all of
// flightd's query results) are streamed here instead; everything else goes to the router.
type flightService struct {
	flight.FlightServer
	srv *Server
}

// DoGet streams a statement ticket's results, releasing every batch whatever happens. The
// stream is registered under the ticket's query id, so CancelFlightInfo and Drain can end it.
func (f *flightService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var msg anypb.Any
	var cmd pb.TicketStatementQuery
	if proto.Unmarshal(t.GetTicket(), &msg) != nil || !msg.MessageIs(&cmd) || msg.UnmarshalTo(&cmd) != nil {
		return f.FlightServer.DoGet(t, stream)
	}
	tp, err := f.srv.statementPayload(cmd.GetStatementHandle())
	if err != nil {
		return err
	}
	noteQuery(stream.Context(), tp.Query)
	ctx, done, err := f.srv.queries.start(stream.Context(), tp.Query)
	if err != nil {
		return err
	}
	defer done()
	op, err := f.srv.run(ctx, tp)
	if err != nil {
		return err
	}
	return f.send(ctx, stream, op.Schema(), f.srv.stream(ctx, op))
}

// send writes the chunks of ch to the client. When ctx is cancelled it returns the cause
// (CancelFlightInfo, shutdown or the client's own cancellation).
func (f *flightService) send(ctx context.Context, stream flight.FlightService_DoGetServer, sc *arrow.Schema, ch <-chan flight.StreamChunk) error {
	defer func() { // the producer stops on ctx; drain whatever it still sends
		for chunk := range ch {
			if chunk.Data != nil {
				chunk.Data.Release()
			}
		}
	}()
	wr := flight.NewRecordWriter(stream, ipc.WithSchema(sc), ipc.WithAllocator(f.srv.env.Mem))
	defer wr.Close()
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case chunk, ok := <-ch:
			if !ok {
				return nil
			}
			if chunk.Err != nil {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				return chunk.Err
			}
			rows := chunk.Data.NumRows()
			err := wr.Write(chunk.Data)
			chunk.Data.Release()
			if err != nil {
				return fmt.Errorf("send results: %w", err)
			}
			noteRows(ctx, rows)
		}
	}
}

// statementTicketCmd adapts the protobuf ticket to flightsql.StatementQueryTicket.
type statementTicketCmd struct{ *pb.TicketStatementQuery }

var _ flightsql.StatementQueryTicket = statementTicketCmd{}
