package flightsrv

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/plan"
)

// Names under which the tables appear to Flight SQL metadata calls. flightd has one catalog
// and one schema; table names are unqualified in SQL.
const (
	CatalogName = "flightd"
	SchemaName  = "main"
)

// Config configures a Server.
type Config struct {
	// Catalog finds the tables. Required.
	Catalog catalog.Catalog
	// Mem allocates every Arrow buffer the server creates; nil means the Go allocator.
	Mem memory.Allocator
	// Exec holds the executor settings (batch size, parallelism: 0 means GOMAXPROCS). Mem
	// overrides Exec.Mem.
	Exec exec.Env
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// Version is reported through SqlInfo.
	Version string
	// Auth, when set, requires every call to authenticate (Basic or Bearer); nil means no auth.
	Auth *Authenticator
	// TLS, when set, serves over TLS (and mTLS when it requires client certificates).
	TLS *tls.Config
	// MaxEndpoints is the most endpoints one query's FlightInfo gets (one per shard of the
	// table's fragments) so that clients can fetch in parallel; ≤ 1 means one endpoint.
	MaxEndpoints int
	// Locations are the URIs put in endpoints, round robin, for multi-replica setups; empty
	// means none (clients reuse their connection).
	Locations []string
	// Secret signs tickets and prepared-statement handles. Replicas that serve each other's
	// tickets share it; empty means a random per-process secret.
	Secret []byte
	// NoSpeculation turns speculative execution off (speculate.go): by default a query whose
	// FlightInfo has one endpoint without a location starts running at GetFlightInfo, and
	// its DoGet streams that run. Replicas behind a load balancer that sends a client's
	// DoGet elsewhere may prefer to turn it off (the run is then wasted, though bounded).
	NoSpeculation bool
	// MaxRecvMsgSize bounds one message a client sends (a DoPut batch, a command); larger
	// ones are refused with RESOURCE_EXHAUSTED. 0 means DefaultMaxRecvMsgSize.
	MaxRecvMsgSize int
	// NoPlanCache turns the plan cache of ad-hoc queries off (plancache.go): by default a
	// repeated query reuses its plan while the tables it reads are unchanged.
	NoPlanCache bool
}

// DefaultMaxRecvMsgSize is the default Config.MaxRecvMsgSize: room for the parameter and
// ingest batches clients send (gRPC's own default is 4 MiB).
const DefaultMaxRecvMsgSize = 64 << 20

// Server implements the Flight SQL service over a catalog.
type Server struct {
	flightsql.BaseServer
	cat     catalog.Catalog
	planner *planner.Planner
	env     exec.Env
	log     *slog.Logger
	auth    *Authenticator
	tls     *tls.Config
	tickets *ticketCodec
	// maxEndpoints and locations: see Config.
	maxEndpoints int
	locations    []string
	// sqlInfoIDs are the SqlInfo ids registered with the base server.
	sqlInfoIDs map[uint32]bool
	// queries tracks running streams for CancelFlightInfo and Drain.
	queries *queryRegistry
	// spec holds statements started at GetFlightInfo (speculate.go); nil until
	// NewFlightServer, whose Shutdown and Stop close it.
	spec        *specRegistry
	noSpec      bool // Config.NoSpeculation
	maxRecvSize int
	// plans caches the plans of ad-hoc queries, planned by cachePlanner (plancache.go);
	// nil when Config.NoPlanCache is set.
	plans        *planCache
	cachePlanner *planner.Planner
	// schemaHdrs holds the encoded schema messages of results (schemahdr.go).
	schemaHdrs *schemaHeaders
}

// New builds a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Catalog == nil {
		return nil, errors.New("flightsrv: no catalog configured")
	}
	env := cfg.Exec
	if cfg.Mem != nil {
		env.Mem = cfg.Mem
	}
	if env.Parallelism <= 0 {
		env.Parallelism = runtime.GOMAXPROCS(0) // a server uses every core it is given
	}
	env = env.WithDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var err error
	s := &Server{cat: cfg.Catalog, planner: planner.New(cfg.Catalog), env: env, log: log, auth: cfg.Auth, tls: cfg.TLS,
		maxEndpoints: cfg.MaxEndpoints, locations: cfg.Locations, queries: newQueryRegistry(), maxRecvSize: cfg.MaxRecvMsgSize,
		noSpec: cfg.NoSpeculation, schemaHdrs: newSchemaHeaders()}
	if !cfg.NoPlanCache {
		s.plans, s.cachePlanner = newPlanCache(), planner.New(recordingCatalog{inner: cfg.Catalog})
	}
	if s.maxRecvSize <= 0 {
		s.maxRecvSize = DefaultMaxRecvMsgSize
	}
	s.Alloc = env.Mem
	if s.tickets, err = newTicketCodec(cfg.Secret); err != nil {
		return nil, err
	}
	if err = s.registerSqlInfo(cfg.Version); err != nil {
		return nil, err
	}
	return s, nil
}

// NewFlightServer wraps s in a gRPC Flight server with flightd's middleware (call logs, error
// mapping and panic recovery outermost, then authentication, sessions and time-travel
// settings) and TLS when configured. The caller calls Init/Serve and Drain (or Shutdown) on
// the result; it also has a Stop method that closes every connection.
func (s *Server) NewFlightServer() flight.Server {
	calls := newCallLog(s.log) // calllog.go
	mw := []flight.ServerMiddleware{{Unary: unaryCalls(calls), Stream: streamCalls(calls)}}
	if s.auth != nil {
		mw = append(mw, flight.ServerMiddleware{Unary: s.auth.unaryAuth(), Stream: s.auth.streamAuth()})
	}
	mw = append(mw, sessionMiddleware()...)
	mw = append(mw, versionMiddleware())
	opts := append(ServerOptions(), grpc.MaxRecvMsgSize(s.maxRecvSize))
	if s.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.tls)))
	}
	fs := newGRPCServer(mw, opts...)
	if s.spec == nil && !s.noSpec {
		s.spec = newSpecRegistry()
	}
	calls.start()
	fs.onStop = func() {
		if s.spec != nil {
			s.spec.close()
		}
		calls.close()
	}
	fs.RegisterFlightService(&flightService{FlightServer: flightsql.NewFlightServerWithAllocator(s, s.env.Mem), srv: s, wire: true})
	return fs
}

// Listen starts serving on addr ("host:port"; port 0 picks a free one) and returns the
// running server and its actual address. Stop it with Drain (or Shutdown).
func (s *Server) Listen(addr string) (flight.Server, net.Addr, error) {
	fs := s.NewFlightServer()
	if err := fs.Init(addr); err != nil {
		fs.Shutdown() // the call log's writer and gRPC's stream workers are already running
		return nil, nil, err
	}
	go func() {
		if err := fs.Serve(); err != nil {
			s.log.Error("flight server stopped", "err", err)
		}
	}()
	return fs, fs.Addr(), nil
}

// Execute plans and starts one SQL statement without going through the network, exactly as a
// Flight client's statement would run. The caller drains and closes the returned operator.
func (s *Server) Execute(ctx context.Context, sql string) (exec.Operator, error) {
	p, err := s.planner.PlanSQL(ctx, sql)
	if err != nil {
		return nil, err
	}
	if p.IsWrite { // update.go: the write runs to the end in Next, which yields its count
		return s.openWrite(ctx, p)
	}
	return s.run(ctx, ticketPayload{Analyze: p.Analyze, Plan: p.Substrait})
}

// run plans, optimizes and opens a ticket's Substrait plan, restricted to one shard of its
// scan when the ticket says so, returning the root operator (opened). For EXPLAIN ANALYZE it
// runs the plan to the end and returns an operator over the one-row profile instead.
func (s *Server) run(ctx context.Context, tp ticketPayload) (exec.Operator, error) {
	return s.runLogical(ctx, tp, nil, false, nil, nil)
}

// runLogical is run with the logical plan tp.Plan encodes when the caller still holds it
// from planning (planner.Prepared.Logical, used once): it skips decoding the Substrait plan
// again. node nil decodes tp.Plan. optimized says node is already optimized (a cached plan,
// plancache.go, which is shared and must not be optimized again); otherwise a non-nil fill
// receives the optimized plan (to cache it; from then on the plan is only read). A non-nil
// alloc (the result stream's) also allocates the query's buffers when the plan only
// streams (streamsOnly).
func (s *Server) runLogical(ctx context.Context, tp ticketPayload, node plan.Node, optimized bool, fill func(plan.Node),
	alloc *queryAllocator) (exec.Operator, error) {
	var err error
	if node == nil {
		if node, err = s.planner.Logical(ctx, tp.Plan); err != nil {
			return nil, err
		}
		optimized = false
	}
	if !optimized {
		node = planner.Optimize(node)
		if fill != nil {
			fill(node)
		}
	}
	if tp.Shard.Count > 1 {
		if node, err = withShard(node, tp.Shard); err != nil {
			return nil, err
		}
	}
	if tp.Analyze {
		text, err := build.ExplainAnalyze(ctx, node, s.env)
		if err != nil {
			return nil, err
		}
		node = plan.NewValues(planner.ExplainSchema, [][]plan.Expr{{
			&plan.Literal{Value: scalar.NewStringScalar("analyzed_plan")},
			&plan.Literal{Value: scalar.NewStringScalar(text)},
		}})
	}
	env := s.env
	if alloc != nil && !tp.Analyze && streamsOnly(node) {
		env.Mem = alloc
		env.Parallelism = streamWorkers(node, env.Parallelism) // stream_workers.go
	}
	op, err := build.Build(node, env)
	if err != nil {
		return nil, err
	}
	if err := op.Open(ctx); err != nil {
		op.Close()
		return nil, err
	}
	return op, nil
}

// schemaBytes serializes a schema the way FlightInfo and SchemaResult carry it.
func (s *Server) schemaBytes(sc *arrow.Schema) []byte {
	return flight.SerializeSchema(sc, s.env.Mem)
}
