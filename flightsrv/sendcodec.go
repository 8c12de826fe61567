package flightsrv

import (
	"errors"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// FlightData field numbers (Flight.proto): data_header and data_body.
const (
	fieldDataHeader = 2
	fieldDataBody   = 1000
)

// sendCodec is the server's gRPC codec: protobuf for every message, except that a
// *wireMsg (a FlightData already laid out for the wire, see encodeFlightData) is handed to
// the transport as is. arrow-go's Flight writer copies each batch's body into a
// bytes.Buffer and protobuf marshaling copies it again; a wireMsg references the batch's
// Arrow buffers, so the transport's own framing is the only copy on the way out.
type sendCodec struct{ base encoding.CodecV2 }

// newSendCodec wraps gRPC's registered protobuf codec.
func newSendCodec() sendCodec { return sendCodec{base: encoding.GetCodecV2(grpcproto.Name)} }

// Marshal implements encoding.CodecV2.
func (c sendCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(*wireMsg); ok {
		return m.take()
	}
	return c.base.Marshal(v)
}

// Unmarshal implements encoding.CodecV2.
func (c sendCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.base.Unmarshal(data, v) }

// Name implements encoding.CodecV2: the content subtype stays "proto".
func (c sendCodec) Name() string { return c.base.Name() }

// errWireMsgTaken reports a wireMsg marshaled twice (its buffers belong to the first send).
var errWireMsgTaken = errors.New("flight data message already sent")

// wireMsg is one FlightData message encoded for gRPC: the protobuf bytes as a buffer slice
// whose large pieces are the Arrow buffers of an IPC payload. Send it with SendMsg on a
// stream of a server built with sendCodec; the transport frees the pieces once written,
// and the payload is released when the last one is freed (or by forceRelease).
type wireMsg struct {
	data  mem.BufferSlice
	taken atomic.Bool
	size  int64        // data_header + data_body bytes, for the call log's bytes_out
	rel   *bodyRelease // nil when no piece references the payload (it is released already)
}

// take hands the buffers to the transport, once.
func (m *wireMsg) take() (mem.BufferSlice, error) {
	if !m.taken.CompareAndSwap(false, true) {
		return nil, errWireMsgTaken
	}
	return m.data, nil
}

// dropUnsent frees the buffers when the message never reached the codec (a send that
// failed before marshaling).
func (m *wireMsg) dropUnsent() {
	if m.taken.CompareAndSwap(false, true) {
		m.data.Free()
	}
}

// released reports whether the payload behind m has been released.
func (m *wireMsg) released() bool { return m.rel == nil || m.rel.done.Load() }

// forceRelease releases the payload even though the transport may still reference its
// bytes. Only for streams whose call has ended; the stream's allocator is closed first
// (send), so the bytes go back to the server's allocator, which never hands out memory
// still referenced, instead of being reused or poisoned under the transport.
func (m *wireMsg) forceRelease() {
	if m.rel != nil {
		m.rel.release()
	}
}

// bodyRelease counts the transport's references to a payload's body pieces and releases the
// payload when the last is freed. It is the mem.BufferPool of those pieces: Put is the free.
type bodyRelease struct {
	left    atomic.Int32
	done    atomic.Bool
	payload ipc.Payload
	onDone  func() // called once, after the release
}

// Get implements mem.BufferPool (the transport does not draw from it; a plain slice).
func (r *bodyRelease) Get(n int) *[]byte {
	b := make([]byte, n)
	return &b
}

// Put implements mem.BufferPool: one piece is no longer referenced.
func (r *bodyRelease) Put(*[]byte) {
	if r.left.Add(-1) == 0 {
		r.release()
	}
}

// release releases the payload once.
func (r *bodyRelease) release() {
	if r.done.CompareAndSwap(false, true) {
		r.payload.Release()
		if r.onDone != nil {
			r.onDone()
		}
	}
}

// bodyPieces collects the byte slices Payload.SerializeBody writes, without copying them:
// they are the payload's buffers (and arrow's padding bytes), valid while it is retained.
type bodyPieces struct {
	pieces [][]byte
	n      int
}

// Write implements io.Writer, keeping p.
func (b *bodyPieces) Write(p []byte) (int, error) {
	b.pieces = append(b.pieces, p)
	b.n += len(p)
	return len(p), nil
}

// encodeFlightData lays out payload as the protobuf FlightData{data_header, data_body}
// (field order and bytes as protobuf marshaling of arrow-go's Flight writer would give)
// and takes ownership of payload: it is released when the transport has freed every piece
// referencing it, then onDone runs. Pieces small enough that gRPC would not reference count
// them are copied.
func encodeFlightData(payload ipc.Payload, onDone func()) (*wireMsg, error) {
	meta := payload.Meta()
	var hdr []byte
	if meta != nil {
		hdr = meta.Bytes()
		defer meta.Release()
	}
	var body bodyPieces
	if err := payload.SerializeBody(&body); err != nil {
		payload.Release()
		return nil, err
	}
	small := make([]byte, 0, 2*binaryVarintLen+len(hdr)+64)
	if len(hdr) > 0 {
		small = protowire.AppendTag(small, fieldDataHeader, protowire.BytesType)
		small = protowire.AppendBytes(small, hdr)
	}
	if body.n > 0 {
		small = protowire.AppendTag(small, fieldDataBody, protowire.BytesType)
		small = protowire.AppendVarint(small, uint64(body.n))
	}
	rel := &bodyRelease{payload: payload, onDone: onDone}
	var out mem.BufferSlice
	for _, p := range body.pieces {
		if mem.IsBelowBufferPoolingThreshold(cap(p)) {
			small = append(small, p...)
			continue
		}
		if len(small) > 0 {
			out = append(out, mem.SliceBuffer(small))
			small = nil
		}
		piece := p
		rel.left.Add(1)
		out = append(out, mem.NewBuffer(&piece, rel))
	}
	if len(small) > 0 {
		out = append(out, mem.SliceBuffer(small))
	}
	m := &wireMsg{data: out, size: int64(len(hdr) + body.n), rel: rel}
	if rel.left.Load() == 0 { // everything was copied
		rel.release()
		m.rel = nil
	}
	return m, nil
}

// binaryVarintLen is the most bytes a protobuf tag or length takes here.
const binaryVarintLen = 10
