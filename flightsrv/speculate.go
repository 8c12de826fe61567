package flightsrv

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/flightd/flightd/planner/plan"
)

// Speculative execution: a Flight SQL client plans with GetFlightInfo and then fetches the
// ticket with DoGet, one round trip later. When the FlightInfo has one endpoint and no
// location (the client fetches it on this connection, so from this server), the statement
// starts running as soon as it is planned: by the time the DoGet arrives, its plan is built,
// its scans are open and its first batches are ready. The DoGet that redeems the ticket
// streams that run instead of starting one; every other DoGet of the ticket (a retry, another
// replica) runs the statement as usual. Tickets pin table versions, so both give the same
// result.
//
// A speculative run is bounded: it holds at most what its operator buffers plus one batch
// (the stream channel is unbuffered, so it stops producing until a DoGet reads), at most
// maxSpeculative runs wait at a time (beyond that statements are not started early), and a
// run nobody redeems within speculativeTTL is cancelled and its batches released. Cancelling
// the statement (CancelFlightInfo) or stopping the server cancels waiting runs too.

const (
	// speculativeTTL is how long a speculative run waits for its DoGet.
	speculativeTTL = 5 * time.Second
	// maxSpeculative bounds the speculative runs waiting for their DoGet.
	maxSpeculative = 16
)

// specRun is one statement started at GetFlightInfo.
type specRun struct {
	payload []byte          // the ticket payload it runs (ticketPayload.encode)
	alloc   *queryAllocator // the result stream's allocator; finish (or the DoGet's send) closes it
	cancel  context.CancelCauseFunc
	timer   *time.Timer

	ready  chan struct{} // closed once schema, ch and err are set
	schema *arrow.Schema
	ch     <-chan flight.StreamChunk // nil when err is set
	err    error

	finishOnce sync.Once
	finished   chan struct{} // closed once every batch is released
}

// specRegistry holds the speculative runs waiting for their DoGet, by query id.
type specRegistry struct {
	ttl    time.Duration // speculativeTTL (tests shorten it)
	mu     sync.Mutex
	runs   map[queryID]*specRun
	closed bool
	wg     sync.WaitGroup // running finish calls of abandoned runs

	// Counters for tests and debugging: runs started, redeemed by a DoGet, abandoned.
	started, taken, abandoned atomic.Int64
}

func newSpecRegistry() *specRegistry {
	return &specRegistry{ttl: speculativeTTL, runs: map[queryID]*specRun{}}
}

// start runs the statement of tp in the background unless the registry is full or closed.
// node is the logical plan tp.Plan encodes, when the planner still holds it (nil: decode
// tp.Plan); the run owns it. ctx carries the planning call's values (session, user); its
// cancellation does not end the run.
func (r *specRegistry) start(ctx context.Context, s *Server, tp ticketPayload, node plan.Node) {
	if tp.Query.isZero() || tp.Analyze {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.runs) >= maxSpeculative || r.runs[tp.Query] != nil {
		return
	}
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	sp := &specRun{payload: tp.encode(), alloc: newQueryAllocator(s.env.Mem), cancel: cancel, ready: make(chan struct{}), finished: make(chan struct{})}
	r.runs[tp.Query] = sp
	r.started.Add(1)
	sp.timer = time.AfterFunc(r.ttl, func() { r.abandon(tp.Query, sp) })
	go func() {
		defer close(sp.ready)
		defer func() { // as the DoGet call's own recovery would (calls.go)
			if p := recover(); p != nil {
				sp.err, sp.ch = recovered(s.log, "DoGet", p), nil
			}
		}()
		op, err := s.runLogical(rctx, tp, node, sp.alloc)
		if err != nil {
			sp.err = err
			return
		}
		sp.schema = op.Schema()
		sp.ch = s.stream(rctx, op)
	}()
}

// take removes and returns the waiting run of the ticket payload tp, or nil.
func (r *specRegistry) take(tp ticketPayload) *specRun {
	if tp.Query.isZero() || tp.Analyze {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.runs[tp.Query]
	if sp == nil || !bytes.Equal(sp.payload, tp.encode()) {
		return nil
	}
	delete(r.runs, tp.Query)
	sp.timer.Stop()
	r.taken.Add(1)
	return sp
}

// abandon cancels the run of id if it is still sp and waiting, and releases its batches in
// the background.
func (r *specRegistry) abandon(id queryID, sp *specRun) {
	r.mu.Lock()
	if r.runs[id] != sp {
		r.mu.Unlock()
		return
	}
	delete(r.runs, id)
	r.wg.Add(1)
	r.mu.Unlock()
	r.abandoned.Add(1)
	sp.timer.Stop()
	go func() {
		defer r.wg.Done()
		sp.finish(errSpeculationAbandoned)
	}()
}

// cancelQuery abandons the waiting run of id, if any (CancelFlightInfo).
func (r *specRegistry) cancelQuery(id queryID) {
	r.mu.Lock()
	sp := r.runs[id]
	r.mu.Unlock()
	if sp != nil {
		r.abandon(id, sp)
	}
}

// close abandons every waiting run, refuses new ones and waits until all batches of
// abandoned runs are released (the server is stopping).
func (r *specRegistry) close() {
	r.mu.Lock()
	r.closed = true
	runs := make(map[queryID]*specRun, len(r.runs))
	for id, sp := range r.runs {
		runs[id] = sp
	}
	r.mu.Unlock()
	for id, sp := range runs {
		r.abandon(id, sp)
	}
	r.wg.Wait()
}

// errSpeculationAbandoned is the cause of a speculative run nobody redeemed (in time).
var errSpeculationAbandoned = fmt.Errorf("speculative run not redeemed: %w", context.Canceled)

// wait returns the run's schema and chunks once the plan is built and opened, or the error
// building it failed with; it gives up when ctx ends.
func (sp *specRun) wait(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	select {
	case <-sp.ready:
		return sp.schema, sp.ch, sp.err
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
}

// finish cancels the run with cause and releases whatever it still produces; it returns
// once the run's operator is closed. Safe to call more than once.
func (sp *specRun) finish(cause error) {
	sp.finishOnce.Do(func() {
		sp.cancel(cause)
		<-sp.ready
		if sp.ch != nil {
			for chunk := range sp.ch {
				if chunk.Data != nil {
					chunk.Data.Release()
				}
			}
		}
		sp.alloc.close()
		close(sp.finished)
	})
	<-sp.finished
}
