package flightsrv

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/flightd/flightd/exec"
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

	ready chan struct{} // closed once op, first, firstErr and err are set
	op    exec.Operator // the opened plan; nil when err is set
	// first is the result's first batch (nil: the result is empty, or firstErr says why
	// there is none), which the run produces before its DoGet comes; the DoGet's opSource
	// produces the rest.
	first    arrow.RecordBatch
	firstErr error
	err      error     // planning or opening failed
	src      *opSource // the DoGet's source, once source made it
	// schemaMsg is the result's IPC schema message, encoded ahead of the DoGet (it is the
	// first message the DoGet sends); nil once the DoGet took it.
	schemaMsg *ipc.Payload

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
// tp.Plan); the run owns it, unless optimized says it is a cached optimized plan, which
// the run only reads. A non-nil fill receives node once optimized (runLogical). ctx
// carries the planning call's values (session, user); its cancellation does not end the
// run. start reports whether the run started.
func (r *specRegistry) start(ctx context.Context, s *Server, tp ticketPayload, node plan.Node, optimized bool, fill func(plan.Node)) bool {
	if tp.Query.isZero() || tp.Analyze {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.runs) >= maxSpeculative || r.runs[tp.Query] != nil {
		return false
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
				sp.err = recovered(s.log, "DoGet", p)
			}
		}()
		op, err := s.runLogical(rctx, tp, node, optimized, fill, sp.alloc)
		if err != nil {
			sp.err = err
			return
		}
		sp.op = op
		msg := ipc.GetSchemaPayload(op.Schema(), sp.alloc)
		sp.schemaMsg = &msg
		sp.first, sp.firstErr = op.Next(rctx)
	}()
	return true
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

// source waits until the run has opened its plan and produced its first batch, and returns
// the source a DoGet streams the result from, or the error building the plan failed with;
// it gives up when ctx ends. The run still owns the operator (finish closes it).
func (sp *specRun) source(ctx context.Context, s *Server) (*opSource, error) {
	select {
	case <-sp.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if sp.err != nil {
		return nil, sp.err
	}
	src := &opSource{srv: s, op: sp.op, nexts: 1}
	switch {
	case sp.first != nil:
		src.push(sp.first)
		sp.first = nil
	case sp.firstErr != nil:
		src.failed = sp.firstErr
	default:
		src.done = true
	}
	sp.src = src
	return src, nil
}

// takeSchemaMsg hands the run's encoded schema message (nil: none) to the caller, who
// releases it. Call it after source.
func (sp *specRun) takeSchemaMsg() *ipc.Payload {
	msg := sp.schemaMsg
	sp.schemaMsg = nil
	return msg
}

// finish cancels the run with cause and releases whatever it still produces; it returns
// once the run's operator is closed. Safe to call more than once.
func (sp *specRun) finish(cause error) {
	sp.finishOnce.Do(func() {
		sp.cancel(cause)
		<-sp.ready
		if sp.schemaMsg != nil {
			sp.schemaMsg.Release()
			sp.schemaMsg = nil
		}
		switch {
		case sp.src != nil: // the DoGet's source owns the operator now
			sp.src.close()
		case sp.op != nil:
			if sp.first != nil {
				sp.first.Release()
			}
			sp.op.Close()
		}
		sp.alloc.close()
		close(sp.finished)
	})
	<-sp.finished
}
