package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// flightService is the Flight SQL router with flightd's own DoGet for statement tickets.
// arrow-go's router (v18.8.0) does not release the batch it was writing when the write
// fails, which is what happens whenever a client closes a stream early (DBeaver's preview
// reads 200 rows and hangs up): every such query leaked one batch. Statement tickets (all of
// flightd's query results) are streamed here instead; everything else goes to the router.
//
// Results go out as wireMsgs (sendwire.go) when the gRPC server has sendCodec (wire is
// set: ServerOptions) and the schema has no dictionaries; otherwise through arrow-go's
// Flight writer.
type flightService struct {
	flight.FlightServer
	srv  *Server
	wire bool
}

// DoGet streams a statement ticket's results, releasing every batch whatever happens. The
// stream is registered under the ticket's query id, so CancelFlightInfo and Drain can end it.
func (f *flightService) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var sp *specRun
	var tp ticketPayload
	if h, ok := statementHandle(t.GetTicket()); ok && f.srv.spec != nil {
		sp = f.srv.spec.takeHandle(h) // speculate.go
	}
	if sp != nil {
		tp.Query = sp.query
	} else {
		var msg anypb.Any
		var cmd pb.TicketStatementQuery
		if proto.Unmarshal(t.GetTicket(), &msg) != nil || !msg.MessageIs(&cmd) || msg.UnmarshalTo(&cmd) != nil {
			return f.FlightServer.DoGet(t, stream)
		}
		var err error
		if tp, err = f.srv.statementPayload(cmd.GetStatementHandle()); err != nil {
			return err
		}
		if f.srv.spec != nil {
			sp = f.srv.spec.take(tp)
		}
	}
	noteQuery(stream.Context(), tp.Query)
	ctx, done, err := f.srv.queries.start(stream.Context(), tp.Query)
	if err != nil {
		if sp != nil {
			sp.finish(err)
		}
		return err
	}
	defer done()
	if sp != nil {
		return f.sendSpeculative(ctx, stream, sp)
	}
	alloc := newQueryAllocator(f.srv.env.Mem)
	op, err := f.srv.runLogical(ctx, tp, nil, false, nil, alloc)
	if err != nil {
		alloc.close()
		return err
	}
	src := newOpSource(f.srv, op)
	defer src.close()
	return f.send(ctx, stream, op.Schema(), src, alloc)
}

// statementTicketType is the type URL of a Flight SQL statement ticket's Any.
var statementTicketType = "type.googleapis.com/" + string((&pb.TicketStatementQuery{}).ProtoReflect().Descriptor().FullName())

// statementHandle returns the statement handle of a ticket that is exactly what
// statementTicket makes: an Any of type_url statementTicketType whose value holds only the
// handle field. It reads the bytes without protobuf reflection; ok is false for anything
// else (the caller then decodes the ticket the usual way).
func statementHandle(ticket []byte) (handle []byte, ok bool) {
	typeURL, value, ok := twoBytesFields(ticket)
	if !ok || string(typeURL) != statementTicketType {
		return nil, false
	}
	num, typ, n := protowire.ConsumeTag(value)
	if n < 0 || num != 1 || typ != protowire.BytesType {
		return nil, false
	}
	handle, m := protowire.ConsumeBytes(value[n:])
	if m < 0 || n+m != len(value) {
		return nil, false
	}
	return handle, true
}

// twoBytesFields reads a message of exactly field 1 then field 2, both length-delimited.
func twoBytesFields(b []byte) (f1, f2 []byte, ok bool) {
	for want := protowire.Number(1); want <= 2; want++ {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != want || typ != protowire.BytesType {
			return nil, nil, false
		}
		v, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return nil, nil, false
		}
		if want == 1 {
			f1 = v
		} else {
			f2 = v
		}
		b = b[n+m:]
	}
	return f1, f2, len(b) == 0
}

// sendSpeculative streams the run started for this ticket at GetFlightInfo; the run ends
// with ctx (the DoGet's).
func (f *flightService) sendSpeculative(ctx context.Context, stream flight.FlightService_DoGetServer, sp *specRun) error {
	stop := context.AfterFunc(ctx, func() { sp.cancel(context.Cause(ctx)) })
	defer stop()
	defer sp.finish(context.Canceled)
	src, err := sp.source(ctx, f.srv)
	if err != nil {
		return err
	}
	return f.send(ctx, stream, sp.op.Schema(), src, sp.alloc)
}

// send writes the batches of src to the client. When ctx is cancelled it returns the cause
// (CancelFlightInfo, shutdown or the client's own cancellation). On the wireMsg path it
// returns once the transport has written (or dropped) the batches it still held, so that
// every batch is released by then. alloc is the stream's allocator (the IPC writer's too);
// send closes it. The caller closes src.
func (f *flightService) send(ctx context.Context, stream flight.FlightService_DoGetServer, sc *arrow.Schema,
	src *opSource, alloc *queryAllocator) error {
	defer alloc.close()
	var out batchSender
	if !f.wire || hasDictionary(sc) { // arrow-go's writer tracks and emits dictionary batches
		wr := flight.NewRecordWriter(stream, ipc.WithSchema(sc), ipc.WithAllocator(alloc))
		defer wr.Close()
		out = writerSender{wr}
	} else {
		ws := newWireSender(ctx, stream, sc, alloc)
		defer ws.finish()
		if err := ws.start(f.srv.schemaHeader(sc)); err != nil {
			return fmt.Errorf("send results: %w", err)
		}
		if m, rows := src.takeEncoded(); m != nil { // a speculative run's first batch
			if err := ws.sendEncoded(m); err != nil {
				return fmt.Errorf("send results: %w", err)
			}
			noteRows(ctx, rows)
		}
		out = ws
	}
	// Closed before ws.finish and wr.Close run (defers run last first): when ctx ends, finish
	// releases messages the transport may still be writing, and the producer (stream's
	// goroutine, when src handed the operator to it) may still be allocating until src is
	// closed; a closed allocator hands those buffers back to mem instead of reusing (or
	// poisoning) them.
	defer alloc.close()
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		batch, err := src.next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return err
		}
		if batch == nil {
			return nil
		}
		rows := batch.NumRows()
		if err := out.send(batch); err != nil {
			return fmt.Errorf("send results: %w", err)
		}
		noteRows(ctx, rows)
	}
}

// batchSender writes one DoGet's batches; send takes ownership of the batch.
type batchSender interface {
	send(batch arrow.RecordBatch) error
}

// writerSender sends through arrow-go's Flight record writer (which copies each body).
type writerSender struct{ wr *flight.Writer }

func (w writerSender) send(batch arrow.RecordBatch) error {
	err := w.wr.Write(batch)
	batch.Release()
	return err
}

// statementTicketCmd adapts the protobuf ticket to flightsql.StatementQueryTicket.
type statementTicketCmd struct{ *pb.TicketStatementQuery }

var _ flightsql.StatementQueryTicket = statementTicketCmd{}
