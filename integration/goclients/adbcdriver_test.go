package goclients

import (
	"context"
	"sync/atomic"

	"github.com/apache/arrow-adbc/go/adbc"
	adbcflight "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// adbcDriver is ADBC's Flight SQL driver as every test here opens it: with a client-side
// workaround for a data race in arrow-go's client middleware (v18.8.0), not in flightd.
//
// That middleware sets a finalizer on every client stream which, when the stream was never
// read to its end, reads the stream's headers and trailers. arrow-go's Flight SQL client reads
// the one result of a DoPut (parameter binding, updates, ingest) and leaves the stream there,
// so a garbage collection between that result and the server's trailers runs the finalizer
// while gRPC's reader goroutine is still storing the trailers: the race detector fails the
// test that happened to be running (TestDatabaseSQLPreparedArgs, once in a CI run). Reading
// each DoPut to its end when the caller gets its result removes the window.
func adbcDriver(mem memory.Allocator) adbc.Driver {
	return drainingDriver{adbcflight.NewDriver(mem)}
}

// drainingDriver opens databases whose gRPC clients carry drainPutResults.
type drainingDriver struct{ adbcflight.Driver }

// NewDatabase implements adbc.Driver.
func (d drainingDriver) NewDatabase(opts map[string]string) (adbc.Database, error) {
	return d.NewDatabaseWithContext(context.Background(), opts)
}

// NewDatabaseWithContext implements adbc.Driver.
func (d drainingDriver) NewDatabaseWithContext(ctx context.Context, opts map[string]string) (adbc.Database, error) {
	return d.NewDatabaseWithOptionsContext(ctx, opts, grpc.WithChainStreamInterceptor(drainPutResults))
}

// drainPutResults wraps DoPut streams so that they are read to their end as soon as the
// caller, having closed its side, receives a result.
func drainPutResults(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != "/arrow.flight.protocol.FlightService/DoPut" {
		return cs, err
	}
	return &drainingStream{ClientStream: cs}, nil
}

// drainingStream reads one message ahead once the client has closed its side of the stream
// (the server then has all its input, so reading ahead cannot wait on the client): the
// stream's end is then seen in the caller's own RecvMsg, and the result read ahead, if any,
// is handed out by the next RecvMsg.
type drainingStream struct {
	grpc.ClientStream
	closed   atomic.Bool
	ahead    *flight.PutResult // a result read ahead, not yet handed out
	aheadErr error             // the stream's end (io.EOF or its error), read ahead
}

// CloseSend implements grpc.ClientStream.
func (s *drainingStream) CloseSend() error {
	s.closed.Store(true)
	return s.ClientStream.CloseSend()
}

// RecvMsg implements grpc.ClientStream.
func (s *drainingStream) RecvMsg(m any) error {
	switch {
	case s.ahead != nil:
		proto.Reset(m.(proto.Message))
		proto.Merge(m.(proto.Message), s.ahead)
		s.ahead = nil
	case s.aheadErr != nil:
		return s.aheadErr
	default:
		if err := s.ClientStream.RecvMsg(m); err != nil || !s.closed.Load() {
			return err
		}
	}
	next := new(flight.PutResult)
	if err := s.ClientStream.RecvMsg(next); err != nil {
		s.aheadErr = err
	} else {
		s.ahead = next
	}
	return nil
}
