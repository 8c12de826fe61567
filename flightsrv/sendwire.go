package flightsrv

import (
	"context"
	"errors"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// errSchemaChanged is a batch whose schema is not the stream's (the IPC writer's check).
var errSchemaChanged = errors.New("batch schema differs from the stream's schema")

// wireSender streams a DoGet's schema and batches as wireMsgs (sendCodec): each batch's
// Arrow buffers go to the transport without being copied into a message buffer first. A
// batch stays retained until the transport has written (or dropped) every byte of it, so
// finish waits for the messages still queued in the transport before the DoGet returns.
type wireSender struct {
	ctx    context.Context
	stream grpc.ServerStream
	schema *arrow.Schema
	alloc  memory.Allocator
	queued []*wireMsg    // sent, payload not yet released
	freed  chan struct{} // a payload was released (capacity 1: a wake-up, not a count)
}

func newWireSender(ctx context.Context, stream grpc.ServerStream, sc *arrow.Schema, alloc memory.Allocator) *wireSender {
	return &wireSender{ctx: ctx, stream: stream, schema: sc, alloc: alloc, freed: make(chan struct{}, 1)}
}

// start sends the schema message, whose IPC header (schemaMessageHeader) is hdr.
func (w *wireSender) start(hdr []byte) error {
	return w.sendEncoded(schemaWireMsg(hdr))
}

// sendEncoded sends m, a self-contained message (it references no payload).
func (w *wireSender) sendEncoded(m *wireMsg) error {
	err := w.stream.SendMsg(m)
	m.dropUnsent()
	if err == nil {
		noteBytesOut(w.ctx, m.size)
	}
	return err
}

// schemaWireMsg is the FlightData of a schema message whose IPC header is hdr: the bytes
// encodeFlightData gives for the schema's payload (a header and no body).
func schemaWireMsg(hdr []byte) *wireMsg {
	data := protowire.AppendTag(make([]byte, 0, binaryVarintLen+len(hdr)+2), fieldDataHeader, protowire.BytesType)
	return &wireMsg{data: mem.BufferSlice{mem.SliceBuffer(protowire.AppendBytes(data, hdr))}, size: int64(len(hdr))}
}

// send implements batchSender.
func (w *wireSender) send(batch arrow.RecordBatch) error {
	if !batch.Schema().Equal(w.schema) {
		batch.Release()
		return errSchemaChanged
	}
	p, err := ipc.GetRecordBatchPayload(batch, ipc.WithAllocator(w.alloc))
	if err != nil {
		batch.Release()
		return err
	}
	return w.sendPayload(p, batch)
}

// sendPayload encodes and sends p; p and batch (may be nil) are released once the transport
// is done with the message.
func (w *wireSender) sendPayload(p ipc.Payload, batch arrow.RecordBatch) error {
	m, err := encodeFlightData(p, func() {
		if batch != nil {
			batch.Release()
		}
		select {
		case w.freed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		if batch != nil {
			batch.Release()
		}
		return err
	}
	err = w.stream.SendMsg(m)
	m.dropUnsent()
	if err == nil {
		noteBytesOut(w.ctx, m.size)
	}
	if !m.released() {
		w.queued = append(w.queued, m)
		if len(w.queued) >= 16 {
			w.prune()
		}
	}
	return err
}

// prune forgets the messages whose payloads have been released.
func (w *wireSender) prune() {
	w.queued = slices.DeleteFunc(w.queued, (*wireMsg).released)
}

// finish waits until the transport has released every message sent. When ctx ends first
// (the call is cancelled or its connection is gone: the transport may never free the
// messages still queued), it releases them itself.
func (w *wireSender) finish() {
	for {
		w.prune()
		if len(w.queued) == 0 {
			return
		}
		select {
		case <-w.freed:
		case <-w.ctx.Done():
			for _, m := range w.queued {
				m.forceRelease()
			}
			w.queued = nil
			return
		}
	}
}

// hasDictionary reports whether a field of sc is or contains a dictionary type.
func hasDictionary(sc *arrow.Schema) bool {
	return slices.ContainsFunc(sc.Fields(), func(f arrow.Field) bool { return typeHasDictionary(f.Type) })
}

func typeHasDictionary(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		return true
	case arrow.ExtensionType:
		return typeHasDictionary(t.StorageType())
	case arrow.NestedType:
		return slices.ContainsFunc(t.Fields(), func(f arrow.Field) bool { return typeHasDictionary(f.Type) })
	}
	return false
}

// noteBytesOut adds n Flight data bytes to the call's bytes_out (the counting stream
// counts *flight.FlightData messages only).
func noteBytesOut(ctx context.Context, n int64) {
	if c := callFrom(ctx); c != nil {
		c.mu.Lock()
		c.bytesOut += n
		c.mu.Unlock()
	}
}
