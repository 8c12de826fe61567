package flightsrv

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
	var sp *specRun
	if f.srv.spec != nil {
		sp = f.srv.spec.take(tp) // speculate.go
	}
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
	op, err := f.srv.run(ctx, tp)
	if err != nil {
		return err
	}
	return f.send(ctx, stream, op.Schema(), f.srv.stream(ctx, op))
}

// sendSpeculative streams the run started for this ticket at GetFlightInfo; the run ends
// with ctx (the DoGet's).
func (f *flightService) sendSpeculative(ctx context.Context, stream flight.FlightService_DoGetServer, sp *specRun) error {
	stop := context.AfterFunc(ctx, func() { sp.cancel(context.Cause(ctx)) })
	defer stop()
	defer sp.finish(context.Canceled)
	sc, ch, err := sp.wait(ctx)
	if err != nil {
		return err
	}
	return f.send(ctx, stream, sc, ch)
}

// send writes the chunks of ch to the client. When ctx is cancelled it returns the cause
// (CancelFlightInfo, shutdown or the client's own cancellation). On the wireMsg path it
// returns once the transport has written (or dropped) the batches it still held, so that
// every batch is released by then.
func (f *flightService) send(ctx context.Context, stream flight.FlightService_DoGetServer, sc *arrow.Schema, ch <-chan flight.StreamChunk) error {
	defer func() { // the producer stops on ctx; drain whatever it still sends
		for chunk := range ch {
			if chunk.Data != nil {
				chunk.Data.Release()
			}
		}
	}()
	alloc := newSendAllocator(f.srv.env.Mem)
	defer alloc.close()
	var out batchSender
	if !f.wire || hasDictionary(sc) { // arrow-go's writer tracks and emits dictionary batches
		wr := flight.NewRecordWriter(stream, ipc.WithSchema(sc), ipc.WithAllocator(alloc))
		defer wr.Close()
		out = writerSender{wr}
	} else {
		ws := newWireSender(ctx, stream, sc, alloc)
		defer ws.finish()
		if err := ws.start(); err != nil {
			return fmt.Errorf("send results: %w", err)
		}
		out = ws
	}
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
			if err := out.send(chunk.Data); err != nil {
				return fmt.Errorf("send results: %w", err)
			}
			noteRows(ctx, rows)
		}
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

// maxSendFree bounds the released buffers a sendAllocator keeps for reuse.
const maxSendFree = 64

// sendAllocator is the IPC writer's allocator for one DoGet. Writing a batch that is a
// slice of a larger one (a limit, a filter's or a join's output; scans read whole
// Env.BatchSize batches) makes the writer copy the slice's offsets (and bitmaps) into new buffers, which it releases as
// soon as the batch is serialized; reusing them avoids a fresh, zeroed allocation per
// column per batch. Buffers come from mem and all go back to it on close, so mem's
// accounting sees them as ordinary allocations. It is safe for concurrent use.
type sendAllocator struct {
	mem    memory.Allocator
	mu     sync.Mutex
	orig   map[*byte][]byte // handed-out buffers by address: the slice mem returned
	free   [][]byte         // released buffers (as mem returned them), kept for reuse
	closed bool
}

func newSendAllocator(mem memory.Allocator) *sendAllocator {
	return &sendAllocator{mem: mem, orig: map[*byte][]byte{}}
}

// Allocate returns a zeroed buffer of size bytes: a released one that fits (no more than
// twice the size) or a new one from mem.
func (a *sendAllocator) Allocate(size int) []byte {
	if size <= 0 {
		return a.mem.Allocate(size)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, b := range a.free {
		if len(b) >= size && len(b) <= 2*size {
			a.free[i] = a.free[len(a.free)-1]
			a.free = a.free[:len(a.free)-1]
			out := b[:size]
			clear(out)
			a.orig[unsafe.SliceData(out)] = b
			return out
		}
	}
	b := a.mem.Allocate(size)
	if !a.closed {
		a.orig[unsafe.SliceData(b)] = b
	}
	return b
}

// Reallocate grows or shrinks b to size bytes, keeping its contents. Buffers a did not
// hand out are mem's to reallocate.
func (a *sendAllocator) Reallocate(size int, b []byte) []byte {
	o, ok := a.original(b)
	if !ok {
		return a.mem.Reallocate(size, b)
	}
	if size <= len(o) {
		return o[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// original returns the slice mem returned for b, if a handed b out.
func (a *sendAllocator) original(b []byte) ([]byte, bool) {
	if cap(b) == 0 {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.orig[unsafe.SliceData(b)]
	return o, ok
}

// Free keeps b for reuse, or gives it back to mem once a is closed or holds maxSendFree.
func (a *sendAllocator) Free(b []byte) {
	if cap(b) == 0 {
		a.mem.Free(b)
		return
	}
	a.mu.Lock()
	o, ok := a.orig[unsafe.SliceData(b)]
	if ok {
		delete(a.orig, unsafe.SliceData(b))
	} else {
		o = b
	}
	keep := ok && !a.closed && len(a.free) < maxSendFree
	if keep {
		a.free = append(a.free, o)
	}
	a.mu.Unlock()
	if !keep {
		a.mem.Free(o)
	}
}

// close gives the kept buffers back to mem; buffers freed later go straight back too.
func (a *sendAllocator) close() {
	a.mu.Lock()
	free := a.free
	a.free, a.closed = nil, true
	a.mu.Unlock()
	for _, b := range free {
		a.mem.Free(b)
	}
}
