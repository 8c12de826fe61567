package flightsrv

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// captureWriter keeps the protobuf bytes of every FlightData arrow-go's writer sends.
type captureWriter struct{ msgs [][]byte }

func (c *captureWriter) Send(fd *flight.FlightData) error {
	b, err := proto.Marshal(fd)
	c.msgs = append(c.msgs, b)
	return err
}

// referenceMessages is what arrow-go's Flight writer sends for batch: schema, then batch.
func referenceMessages(t *testing.T, mem memory.Allocator, batch arrow.RecordBatch) [][]byte {
	t.Helper()
	var c captureWriter
	w := flight.NewRecordWriter(&c, ipc.WithSchema(batch.Schema()), ipc.WithAllocator(mem))
	require.NoError(t, w.Write(batch))
	require.NoError(t, w.Close())
	require.Len(t, c.msgs, 2)
	return c.msgs
}

// testBatch builds a batch of n rows: int64, nullable string, bool, list<int32>, struct.
func testBatch(t *testing.T, mem memory.Allocator, n int) arrow.RecordBatch {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "f", Type: arrow.PrimitiveTypes.Float64})},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 7)
		if i%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(string(rune('a'+i%26)) + "xyz")
		}
		b.Field(2).(*array.BooleanBuilder).Append(i%3 == 0)
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		for j := range i % 4 {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + j))
		}
		sb := b.Field(4).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Float64Builder).Append(float64(i) / 2)
	}
	return b.NewRecordBatch()
}

// encodeFlightData gives byte for byte the protobuf message arrow-go's writer (plus
// protobuf marshaling) gives, for the schema and for batches whose buffers are large
// (referenced), small (copied), sliced (re-based by the IPC encoder) or empty; the payload
// is released exactly when the transport frees the last referenced piece.
func TestEncodeFlightDataMatchesWriter(t *testing.T) {
	tests := []struct {
		name       string
		rows       int
		slice      [2]int64 // when slice[1] > 0: the batch is NewSlice(slice[0], slice[1])
		referenced bool     // some pieces reference the payload (not all copied)
	}{
		{"large buffers", 5000, [2]int64{}, true},
		{"tiny batch, all copied", 3, [2]int64{}, false},
		{"sliced batch", 5000, [2]int64{101, 3999}, true},
		{"empty batch", 0, [2]int64{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer alloc.AssertSize(t, 0)
			batch := testBatch(t, alloc, tt.rows)
			if tt.slice[1] > 0 {
				s := batch.NewSlice(tt.slice[0], tt.slice[1])
				batch.Release()
				batch = s
			}
			defer batch.Release()
			want := referenceMessages(t, alloc, batch)

			sm, err := encodeFlightData(ipc.GetSchemaPayload(batch.Schema(), alloc), nil)
			require.NoError(t, err)
			require.True(t, sm.released(), "a schema message has no body to reference")
			require.Equal(t, want[0], sm.data.Materialize())
			sm.data.Free()
			hm := schemaWireMsg(schemaMessageHeader(batch.Schema(), alloc)) // what a DoGet sends
			require.Equal(t, want[0], hm.data.Materialize())
			require.Equal(t, sm.size, hm.size)
			// A speculative run encodes a first batch ahead only when the message holds all
			// of it (nothing referenced), and then byte for byte as the DoGet would.
			if fm := encodeFirst(batch, batch.Schema(), alloc); tt.referenced {
				require.Nil(t, fm)
			} else {
				require.NotNil(t, fm)
				require.Equal(t, want[1], fm.data.Materialize())
				require.True(t, fm.released())
			}

			p, err := ipc.GetRecordBatchPayload(batch, ipc.WithAllocator(alloc))
			require.NoError(t, err)
			var done atomic.Int32
			m, err := encodeFlightData(p, func() { done.Add(1) })
			require.NoError(t, err)
			got := m.data.Materialize()
			require.Equal(t, want[1], got)
			var fd flight.FlightData
			require.NoError(t, proto.Unmarshal(got, &fd))
			require.Equal(t, int64(len(fd.DataHeader)+len(fd.DataBody)), m.size)
			require.Equal(t, !tt.referenced, m.released())
			data, err := m.take()
			require.NoError(t, err)
			_, err = m.take()
			require.ErrorIs(t, err, errWireMsgTaken)
			data.Free() // what the transport does once the message is written
			require.True(t, m.released())
			require.Equal(t, int32(1), done.Load())
		})
	}
}

// The codec hands a wireMsg's buffers over and marshals everything else as protobuf.
func TestSendCodec(t *testing.T) {
	c := newSendCodec()
	require.Equal(t, "proto", c.Name())
	fd := &flight.FlightData{DataHeader: []byte{1, 2, 3}, DataBody: []byte("body")}
	out, err := c.Marshal(fd)
	require.NoError(t, err)
	want, err := proto.Marshal(fd)
	require.NoError(t, err)
	require.Equal(t, want, out.Materialize())
	var back flight.FlightData
	require.NoError(t, c.Unmarshal(out, &back))
	require.Equal(t, fd.DataBody, back.DataBody)
	out.Free()

	m := &wireMsg{data: mem.BufferSlice{mem.SliceBuffer("xyz")}}
	got, err := c.Marshal(m)
	require.NoError(t, err)
	require.Equal(t, []byte("xyz"), got.Materialize())
	_, err = c.Marshal(m)
	require.ErrorIs(t, err, errWireMsgTaken)
}

// fakeStream is a transport that marshals with sendCodec and keeps the buffers (as queued
// frames) until free is called, or fails sends before marshaling.
type fakeStream struct {
	grpc.ServerStream
	ctx    context.Context
	fail   error
	queued []mem.BufferSlice
}

func (s *fakeStream) Context() context.Context { return s.ctx }

func (s *fakeStream) SendMsg(m any) error {
	if s.fail != nil {
		return s.fail
	}
	data, err := newSendCodec().Marshal(m)
	if err == nil {
		s.queued = append(s.queued, data)
	}
	return err
}

func (s *fakeStream) free() {
	for _, d := range s.queued {
		d.Free()
	}
	s.queued = nil
}

// A wireSender keeps each batch until the transport frees its message: finish waits for
// that, or releases the messages itself once the call's context ends; a send that fails
// before marshaling frees its message at once.
func TestWireSenderFinish(t *testing.T) {
	tests := []struct {
		name string
		end  func(cancel context.CancelFunc, s *fakeStream) // how the messages go away
		fail error
	}{
		{"transport frees the messages", func(_ context.CancelFunc, s *fakeStream) {
			time.Sleep(20 * time.Millisecond)
			s.free()
		}, nil},
		{"call ends with messages queued", func(cancel context.CancelFunc, _ *fakeStream) { cancel() }, nil},
		{"send fails before marshaling", func(context.CancelFunc, *fakeStream) {}, errors.New("stream broken")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer alloc.AssertSize(t, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &fakeStream{ctx: ctx, fail: tt.fail}
			batch := testBatch(t, alloc, 3000)
			w := newWireSender(ctx, s, batch.Schema(), alloc)
			err := w.start(schemaMessageHeader(batch.Schema(), alloc))
			require.ErrorIs(t, err, tt.fail)
			err = w.send(batch) // takes the batch
			require.ErrorIs(t, err, tt.fail)
			if tt.fail == nil {
				require.Len(t, s.queued, 2)
				require.NotZero(t, alloc.CurrentAlloc(), "the queued batch is still retained")
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				tt.end(cancel, s)
			}()
			w.finish()
			<-done
			require.Zero(t, alloc.CurrentAlloc())
			s.free() // a transport freeing after a forced release changes nothing
		})
	}
}

// Schemas with a dictionary anywhere go through arrow-go's writer.
func TestHasDictionary(t *testing.T) {
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	tests := []struct {
		name string
		typ  arrow.DataType
		want bool
	}{
		{"plain", arrow.PrimitiveTypes.Int64, false},
		{"dictionary", dict, true},
		{"list of dictionary", arrow.ListOf(dict), true},
		{"struct with dictionary", arrow.StructOf(arrow.Field{Name: "d", Type: dict}), true},
		{"map of strings", arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), false},
		{"struct of ints", arrow.StructOf(arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int8}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}, {Name: "c", Type: tt.typ}}, nil)
			require.Equal(t, tt.want, hasDictionary(sc))
		})
	}
}
