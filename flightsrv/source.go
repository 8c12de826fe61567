package flightsrv

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/flightd/flightd/exec"
)

// inlineNexts is how many times a DoGet calls its operator's Next itself before a
// goroutine takes over (opSource).
const inlineNexts = 2

// opSource yields the batches a DoGet streams from its root operator, sliced under
// maxChunkBytes like stream's. The first inlineNexts calls of op.Next run in the DoGet's
// own goroutine: a small result (a point lookup: one batch, then the end) is produced and
// sent without handing anything to another goroutine, each hand-off being a wake-up that
// costs tens of microseconds. A longer result is then produced by stream's goroutine, so
// that producing the next batches overlaps with sending this one. The DoGet owns the
// source and calls close when done.
type opSource struct {
	srv *Server
	op  exec.Operator

	pending     arrow.RecordBatch // the batch being sliced; nil when none
	start, step int64             // next slice of pending: its first row and row count
	nexts       int               // op.Next calls made inline
	done        bool              // op is exhausted
	failed      error             // returned by next once pending is sent (a Next that failed early)

	ch     <-chan flight.StreamChunk // stream's channel once it took op over; it then owns op
	cancel context.CancelFunc        // stops stream's goroutine

	// ahead is the speculative run reading the next batch ahead (speculate.go), until fill
	// takes that batch; the run uses op until then.
	ahead *specRun
	// encoded is pending, the run's first batch, as a wireMsg (encodeFirst); nil if not.
	encoded *wireMsg
}

func newOpSource(srv *Server, op exec.Operator) *opSource { return &opSource{srv: srv, op: op} }

// push makes b (owned) the batch next yields from.
func (s *opSource) push(b arrow.RecordBatch) {
	s.pending, s.start, s.step = b, 0, b.NumRows()
	if size := batchBytes(b); size > maxChunkBytes && s.step > 1 {
		s.step = max(1, s.step*maxChunkBytes/size)
	}
}

// next returns the next batch to send, owned by the caller, or nil at the end.
func (s *opSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.pending == nil {
		if err := s.fill(ctx); err != nil || s.pending == nil {
			return nil, err
		}
	}
	b, rows := s.pending, s.pending.NumRows()
	if s.start == 0 && s.step >= rows {
		s.pending = nil
		return b, nil
	}
	part := b.NewSlice(s.start, min(rows, s.start+s.step))
	if s.start += s.step; s.start >= rows {
		b.Release()
		s.pending = nil
	}
	return part, nil
}

// fill sets pending to the operator's next batch; it leaves pending nil at the end.
func (s *opSource) fill(ctx context.Context) error {
	switch {
	case s.ahead != nil:
		return s.fillAhead(ctx)
	case s.failed != nil:
		err := s.failed
		s.failed = nil
		s.done = true
		return err
	case s.done:
		return nil
	case s.ch != nil:
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case chunk, ok := <-s.ch:
			if !ok {
				s.done = true
				return nil
			}
			if chunk.Err != nil {
				return chunk.Err
			}
			s.pending, s.start, s.step = chunk.Data, 0, chunk.Data.NumRows() // stream sliced it
			return nil
		}
	case s.nexts >= inlineNexts:
		sctx, cancel := context.WithCancel(ctx)
		s.ch, s.cancel = s.srv.stream(sctx, s.op), cancel
		return s.fill(ctx)
	}
	s.nexts++
	b, err := s.op.Next(ctx)
	if err != nil {
		s.done = true
		return err
	}
	if b == nil {
		s.done = true
		return nil
	}
	s.push(b)
	return nil
}

// takeEncoded returns the wireMsg of the batch next would return, encoded ahead by a
// speculative run, and that batch's row count, dropping the batch; nil when there is none.
func (s *opSource) takeEncoded() (*wireMsg, int64) {
	m := s.encoded
	s.encoded = nil
	if m == nil || s.pending == nil || s.start != 0 || s.step < s.pending.NumRows() {
		return nil, 0
	}
	rows := s.pending.NumRows()
	s.pending.Release()
	s.pending = nil
	return m, rows
}

// fillAhead sets pending to the batch the speculative run read ahead, once it has.
func (s *opSource) fillAhead(ctx context.Context) error {
	select {
	case <-s.ahead.prefetched:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	sp := s.ahead
	s.ahead = nil
	s.nexts++
	b, err := sp.second, sp.secondErr
	sp.second = nil
	switch {
	case err != nil:
		s.done = true
		return err
	case b == nil:
		s.done = true
		return nil
	}
	s.push(b)
	return nil
}

// close releases what the source still holds and closes the operator (or stops and
// drains stream's goroutine, which closes it).
func (s *opSource) close() {
	if s.pending != nil {
		s.pending.Release()
		s.pending = nil
	}
	if sp := s.ahead; sp != nil { // the run's context is cancelled: it stops reading soon
		<-sp.prefetched
		if sp.second != nil {
			sp.second.Release()
			sp.second = nil
		}
		s.ahead = nil
	}
	if s.ch == nil {
		s.op.Close()
		return
	}
	s.cancel()
	for chunk := range s.ch {
		if chunk.Data != nil {
			chunk.Data.Release()
		}
	}
}
