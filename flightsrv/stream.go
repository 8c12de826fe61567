package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/flightd/flightd/exec"
)

// maxChunkBytes bounds the Arrow buffer bytes of one streamed batch. Go Flight clients accept
// 4 MiB messages by default; the IPC framing and metadata need some room on top of the buffers.
const maxChunkBytes = 3 << 20

// stream drains op in a goroutine and sends its batches, sliced under maxChunkBytes, on the
// returned channel. The goroutine stops when op is exhausted, fails or ctx is cancelled; it
// closes op and then the channel, so the Flight router's drain loop always terminates.
func (s *Server) stream(ctx context.Context, op exec.Operator) <-chan flight.StreamChunk {
	ch := make(chan flight.StreamChunk)
	go func() {
		defer close(ch)
		defer op.Close()
		defer func() {
			if p := recover(); p != nil {
				err := recovered(s.log, "DoGet", p)
				select {
				case ch <- flight.StreamChunk{Err: err}:
				case <-ctx.Done():
				}
			}
		}()
		if err := s.pump(ctx, op, ch); err != nil {
			select {
			case ch <- flight.StreamChunk{Err: toStatusError(err)}:
			case <-ctx.Done():
			}
		}
	}()
	return ch
}

// pump moves batches from op to ch until op is exhausted.
func (s *Server) pump(ctx context.Context, op exec.Operator, ch chan<- flight.StreamChunk) error {
	for {
		batch, err := op.Next(ctx)
		if err != nil {
			return err
		}
		if batch == nil {
			return nil
		}
		err = sendSliced(ctx, batch, ch)
		batch.Release()
		if err != nil {
			return err
		}
	}
}

// sendSliced sends batch as one or more slices small enough for one gRPC message. Each slice
// sent is owned by the receiver.
func sendSliced(ctx context.Context, batch arrow.RecordBatch, ch chan<- flight.StreamChunk) error {
	rows := batch.NumRows()
	step := rows
	if size := batchBytes(batch); size > maxChunkBytes && rows > 1 {
		step = max(1, rows*maxChunkBytes/size)
	}
	for start := int64(0); start < rows || (rows == 0 && start == 0); start += step {
		var part arrow.RecordBatch
		if start == 0 && step >= rows {
			batch.Retain()
			part = batch
		} else {
			part = batch.NewSlice(start, min(rows, start+step))
		}
		select {
		case ch <- flight.StreamChunk{Data: part}:
		case <-ctx.Done():
			part.Release()
			return fmt.Errorf("stream results: %w", ctx.Err())
		}
		if rows == 0 {
			break
		}
	}
	return nil
}

// batchBytes is the total size of the buffers behind a batch (an upper bound for slices).
func batchBytes(batch arrow.RecordBatch) int64 {
	var n int64
	for _, col := range batch.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
