package flightsrv

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

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
// A speculative run is bounded: it holds at most what its operator buffers plus two
// batches (after a first batch of at most 64 KiB it reads the next one ahead; the stream
// channel is unbuffered, so it then stops producing until a DoGet reads), at most
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
	query   queryID         // the payload's query id
	handle  string          // the signed statement handle of its ticket (takeHandle)
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
	// firstMsg is first as the DoGet sends it (encodeFirst), encoded ahead; nil if not.
	firstMsg *wireMsg
	err      error     // planning or opening failed
	src      *opSource // the DoGet's source, once source made it

	// After a small first batch the run reads ahead: second is the result's next batch
	// (nil at the end of the result, or secondErr says why there is none), read while the
	// DoGet is on its way, so that a short result's DoGet does not wait for its end either.
	// readAhead is set before ready is closed; prefetched is closed once the run is done
	// with op (right after first when it does not read ahead).
	readAhead  bool
	prefetched chan struct{}
	second     arrow.RecordBatch
	secondErr  error

	finishOnce sync.Once
	finished   chan struct{} // closed once every batch is released
}

// specRegistry holds the speculative runs waiting for their DoGet, by query id.
type specRegistry struct {
	ttl     time.Duration // speculativeTTL (tests shorten it)
	mu      sync.Mutex
	runs    map[queryID]*specRun
	handles map[string]*specRun // the same runs, by statement handle
	closed  bool
	wg      sync.WaitGroup // running finish calls of abandoned runs
	workers *specWorkers   // run the runs (speculate_workers.go)

	// Counters for tests and debugging: runs started, redeemed by a DoGet, abandoned.
	started, taken, abandoned atomic.Int64
}

func newSpecRegistry() *specRegistry {
	return &specRegistry{ttl: speculativeTTL, runs: map[queryID]*specRun{}, handles: map[string]*specRun{},
		workers: newSpecWorkers(runtime.GOMAXPROCS(0))}
}

// start runs the statement of tp in the background unless the registry is full or closed.
// node is the logical plan tp.Plan encodes, when the planner still holds it (nil: decode
// tp.Plan); the run owns it, unless optimized says it is a cached optimized plan, which
// the run only reads. A non-nil fill receives node once optimized (runLogical). handle is
// the signed statement handle of tp's ticket. ctx carries the planning call's values
// (session, user); its cancellation does not end the run. start reports whether the run
// started.
func (r *specRegistry) start(ctx context.Context, s *Server, tp ticketPayload, handle []byte, node plan.Node, optimized bool, fill func(plan.Node)) bool {
	if tp.Query.isZero() || tp.Analyze {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.runs) >= maxSpeculative || r.runs[tp.Query] != nil {
		return false
	}
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	sp := &specRun{payload: tp.encode(), query: tp.Query, handle: string(handle), alloc: newQueryAllocator(s.env.Mem),
		cancel: cancel, ready: make(chan struct{}), prefetched: make(chan struct{}), finished: make(chan struct{})}
	r.runs[tp.Query] = sp
	r.handles[sp.handle] = sp
	r.started.Add(1)
	sp.timer = time.AfterFunc(r.ttl, func() { r.abandon(tp.Query, sp) })
	r.workers.submit(func() { sp.run(rctx, s, tp, node, optimized, fill) })
	return true
}

// specReadAhead is the largest first batch after which a run reads the next batch ahead
// (and encodes the first as its DoGet will send it).
const specReadAhead = 64 << 10

// encodeFirst is the wireMsg a DoGet sending batch (a result of schema sc) on the wire path
// sends (wireSender.send), when it is self-contained: every piece of a small batch's body is
// copied into it (encodeFlightData), so it holds nothing of the batch. It returns nil when
// the DoGet would not send a wireMsg (dictionaries, another schema) or when the message
// would reference the batch's buffers.
func encodeFirst(batch arrow.RecordBatch, sc *arrow.Schema, alloc memory.Allocator) *wireMsg {
	if hasDictionary(sc) || !batch.Schema().Equal(sc) {
		return nil
	}
	p, err := ipc.GetRecordBatchPayload(batch, ipc.WithAllocator(alloc))
	if err != nil {
		return nil
	}
	m, err := encodeFlightData(p, nil)
	if err != nil {
		return nil
	}
	if !m.released() {
		m.dropUnsent() // frees the pieces, which releases the payload
		return nil
	}
	return m
}

// run plans and opens the statement, reads its first batch and, after a small one, the next.
func (sp *specRun) run(ctx context.Context, s *Server, tp ticketPayload, node plan.Node, optimized bool, fill func(plan.Node)) {
	ready := false
	defer func() {
		if p := recover(); p != nil { // as the DoGet call's own recovery would (calls.go)
			if err := recovered(s.log, "DoGet", p); ready {
				sp.secondErr = err
			} else {
				sp.err = err
			}
		}
		if !ready {
			close(sp.ready)
		}
		close(sp.prefetched)
	}()
	op, err := s.runLogical(ctx, tp, node, optimized, fill, sp.alloc)
	if err != nil {
		sp.err = err
		return
	}
	sp.op = op
	sp.first, sp.firstErr = op.Next(ctx)
	sp.readAhead = sp.first != nil && batchBytes(sp.first) <= specReadAhead
	if sp.readAhead {
		sp.firstMsg = encodeFirst(sp.first, op.Schema(), sp.alloc)
	}
	ready = true
	close(sp.ready)
	if sp.readAhead {
		sp.second, sp.secondErr = op.Next(ctx)
	}
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
	r.takeLocked(sp)
	return sp
}

// takeHandle removes and returns the waiting run started for the statement handle (the
// ticket's signed bytes, exactly as GetFlightInfo issued them), or nil. A DoGet whose
// ticket is a run's own handle needs neither verify nor decode it: the server made those
// bytes.
func (r *specRegistry) takeHandle(handle []byte) *specRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.handles[string(handle)]
	if sp != nil {
		r.takeLocked(sp)
	}
	return sp
}

// takeLocked removes the waiting run sp, which the caller redeems.
func (r *specRegistry) takeLocked(sp *specRun) {
	delete(r.runs, sp.query)
	delete(r.handles, sp.handle)
	sp.timer.Stop()
	r.taken.Add(1)
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
	delete(r.handles, sp.handle)
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
// abandoned runs are released and the workers have stopped (the server is stopping).
func (r *specRegistry) close() {
	r.mu.Lock()
	r.closed = true
	r.workers.close()
	runs := make(map[queryID]*specRun, len(r.runs))
	for id, sp := range r.runs {
		runs[id] = sp
	}
	r.mu.Unlock()
	for id, sp := range runs {
		r.abandon(id, sp)
	}
	r.wg.Wait()
	r.workers.wait()
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
	if sp.readAhead {
		src.ahead = sp
	}
	src.encoded, sp.firstMsg = sp.firstMsg, nil
	sp.src = src
	return src, nil
}

// finish cancels the run with cause and releases whatever it still produces; it returns
// once the run's operator is closed. Safe to call more than once.
func (sp *specRun) finish(cause error) {
	sp.finishOnce.Do(func() {
		sp.cancel(cause)
		<-sp.ready
		switch {
		case sp.src != nil: // the DoGet's source owns the operator now
			sp.src.close()
		case sp.op != nil:
			<-sp.prefetched
			for _, b := range []arrow.RecordBatch{sp.first, sp.second} {
				if b != nil {
					b.Release()
				}
			}
			sp.op.Close()
		}
		sp.alloc.close()
		close(sp.finished)
	})
	<-sp.finished
}
