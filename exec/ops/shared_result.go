package ops

import (
	"context"
	"errors"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/flightd/flightd/exec"
)

// SharedResult runs one input once for several readers: a subplan that occurs more than
// once in a query (TPC-H q15's revenue view, read by the join and by the max subquery) is
// computed by the first reader that asks for a row, its batches are kept, and every reader
// streams them all. The batches are reserved in the query's pool and released, with the
// input, when the last reader closes. Readers may run on different goroutines.
type SharedResult struct {
	in  exec.Operator
	env exec.Env

	mu      sync.Mutex
	ran     bool // the input has been run (err set if it failed)
	err     error
	batches []arrow.RecordBatch
	res     *exec.Reservation
	readers int // readers not yet closed
	closed  bool
}

// NewSharedResult returns a shared run of in; readers come from Reader.
func NewSharedResult(in exec.Operator, env exec.Env) *SharedResult {
	return &SharedResult{in: in, env: env, res: newReservation(env, "shared subplan")}
}

// Reader returns a new reader of s's rows, or false once every earlier reader has closed
// (the rows are gone). Every reader must be closed; the last Close releases the rows and
// the input.
func (s *SharedResult) Reader() (exec.Operator, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.readers++
	return &sharedReader{s: s}, true
}

// run drains the input once (later callers wait for the first) and returns the batches.
func (s *SharedResult) run(ctx context.Context) ([]arrow.RecordBatch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("shared subplan: read after close")
	}
	if !s.ran {
		s.ran = true
		s.err = s.drain(ctx)
	}
	return s.batches, s.err
}

// drain opens the input and keeps every non-empty batch.
func (s *SharedResult) drain(ctx context.Context) error {
	if err := s.in.Open(ctx); err != nil {
		return err
	}
	for {
		b, err := s.in.Next(ctx)
		if err != nil || b == nil {
			return err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if err := s.res.TryGrow(batchBytes(b)); err != nil {
			b.Release()
			return err
		}
		settleNullCounts(b) // readers on several goroutines would each compute them
		s.batches = append(s.batches, b)
	}
}

// release is a reader's Close: the last one frees everything.
func (s *SharedResult) release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readers--
	if s.readers > 0 || s.closed {
		return nil
	}
	s.closed = true
	releaseBatches(s.batches)
	s.batches = nil
	s.res.Free()
	return s.in.Close()
}

// sharedReader streams a SharedResult's batches.
type sharedReader struct {
	s      *SharedResult
	next   int
	closed bool
}

// Schema implements exec.Operator.
func (r *sharedReader) Schema() *arrow.Schema { return r.s.in.Schema() }

// Open implements exec.Operator; the input runs at the first Next of any reader.
func (r *sharedReader) Open(context.Context) error { return nil }

// Next implements exec.Operator.
func (r *sharedReader) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.closed {
		return nil, nil
	}
	batches, err := r.s.run(ctx)
	if err != nil || r.next >= len(batches) {
		return nil, err
	}
	b := batches[r.next]
	r.next++
	b.Retain()
	return b, nil
}

// Close implements exec.Operator.
func (r *sharedReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.s.release()
}
