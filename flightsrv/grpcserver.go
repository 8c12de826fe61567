package flightsrv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
)

// writeBufferSize is the transport's write buffer per connection: results go out in
// writes of up to this many bytes instead of gRPC's default 32 KiB (32 times fewer write
// syscalls). In the transfer benchmark it saved a few percent of the server's and the
// client's CPU per GB (bench/RESULTS.md §4). The buffer is pooled between connections
// (SharedWriteBuffer), so idle connections do not each hold one.
const writeBufferSize = 1 << 20

// ServerOptions returns the gRPC server options that shape flightd's data transfer: the
// codec that sends DoGet results without copying them into message buffers (sendCodec;
// every other message is protobuf as usual) and the write buffer. NewFlightServer uses
// them; a reference server measured against flightd (the transfer benchmark's synthetic
// Flight server) should too.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(newSendCodec()),
		grpc.WriteBufferSize(writeBufferSize),
		grpc.SharedWriteBuffer(true),
		grpc.NumStreamWorkers(uint32(streamWorkerCount())),
	}
}

// streamWorkerCount is how many goroutines gRPC keeps to run calls on (NumStreamWorkers): a
// call handed to one of them runs on its already grown stack, where a new goroutine per call
// grows a small stack by copying it, several times, on every call. A call that finds them
// all busy gets a goroutine of its own, as without workers.
func streamWorkerCount() int { return 2 * runtime.GOMAXPROCS(0) }

// grpcServer is a flight.Server that can also be stopped hard (Stop), which Drain needs for
// clients that stop reading: a graceful stop waits for them forever. It is what arrow-go's
// flight.NewServerWithMiddleware builds, without arrow-go's own auth-handler interceptors
// (flightd authenticates in its own middleware).
type grpcServer struct {
	srv     *grpc.Server
	lis     net.Listener
	signals chan os.Signal
	// onStop, when set, runs once the server has stopped (Shutdown, Stop or a signal).
	onStop func()
}

var _ flight.Server = (*grpcServer)(nil)

func newGRPCServer(mw []flight.ServerMiddleware, opts ...grpc.ServerOption) *grpcServer {
	var unary []grpc.UnaryServerInterceptor
	var stream []grpc.StreamServerInterceptor
	for _, m := range mw {
		if m.Unary != nil {
			unary = append(unary, m.Unary)
		}
		if m.Stream != nil {
			stream = append(stream, m.Stream)
		}
	}
	opts = append(opts, grpc.ChainUnaryInterceptor(unary...), grpc.ChainStreamInterceptor(stream...))
	return &grpcServer{srv: grpc.NewServer(opts...)}
}

// Init listens on addr.
func (g *grpcServer) Init(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	g.lis = lis
	return nil
}

// InitListener serves on lis.
func (g *grpcServer) InitListener(lis net.Listener) { g.lis = lis }

// Addr is the address listened on.
func (g *grpcServer) Addr() net.Addr { return g.lis.Addr() }

// SetShutdownOnSignals makes Serve stop gracefully on any of sig.
func (g *grpcServer) SetShutdownOnSignals(sig ...os.Signal) {
	g.signals = make(chan os.Signal, 1)
	signal.Notify(g.signals, sig...)
}

// Serve serves until Shutdown or Stop (then it returns nil) or a fatal listener error.
func (g *grpcServer) Serve() error {
	if g.lis == nil {
		return errors.New("serve: Init was not called")
	}
	done := make(chan struct{})
	defer close(done)
	if g.signals != nil {
		go func() {
			select {
			case <-g.signals:
				g.Shutdown()
			case <-done:
			}
		}()
	}
	return g.srv.Serve(g.lis)
}

// Shutdown stops accepting connections and calls and waits for the running calls to end.
func (g *grpcServer) Shutdown() {
	g.srv.GracefulStop()
	g.stopped()
}

// Stop closes every connection at once, ending the calls still running.
func (g *grpcServer) Stop() {
	g.srv.Stop()
	g.stopped()
}

func (g *grpcServer) stopped() {
	if g.onStop != nil {
		g.onStop()
	}
}

// RegisterFlightService registers the Flight service.
func (g *grpcServer) RegisterFlightService(svc flight.FlightServer) {
	flight.RegisterFlightServiceServer(g.srv, svc)
}

// RegisterService registers another gRPC service (health checks, say).
func (g *grpcServer) RegisterService(sd *grpc.ServiceDesc, ss any) { g.srv.RegisterService(sd, ss) }

// GetServiceInfo describes the registered services.
func (g *grpcServer) GetServiceInfo() map[string]grpc.ServiceInfo { return g.srv.GetServiceInfo() }
