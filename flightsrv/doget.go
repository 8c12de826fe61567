package flightsrv

import (
	"fmt"

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

// DoGet streams a statement ticket's results, releasing every batch whatever happens.
func (f *flightService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var msg anypb.Any
	var cmd pb.TicketStatementQuery
	if proto.Unmarshal(t.GetTicket(), &msg) != nil || !msg.MessageIs(&cmd) || msg.UnmarshalTo(&cmd) != nil {
		return f.FlightServer.DoGet(t, stream)
	}
	ctx := stream.Context()
	sc, ch, err := f.srv.DoGetStatement(ctx, statementTicketCmd{&cmd})
	if err != nil {
		return err
	}
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
		select {
		case <-ctx.Done():
			return ctx.Err()
		case chunk, ok := <-ch:
			if !ok {
				return nil
			}
			if chunk.Err != nil {
				return chunk.Err
			}
			err := wr.Write(chunk.Data)
			chunk.Data.Release()
			if err != nil {
				return fmt.Errorf("send results: %w", err)
			}
		}
	}
}

// statementTicketCmd adapts the protobuf ticket to flightsql.StatementQueryTicket.
type statementTicketCmd struct{ *pb.TicketStatementQuery }

var _ flightsql.StatementQueryTicket = statementTicketCmd{}
