package flightsrv

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// Every call is logged when it ends (Info; Warn or Error when it fails) with its method, user,
// query id, duration, rows and bytes streamed and status code, and when it starts (Debug). The
// closing record is written by the call log's goroutine, after the response (calllog.go). The
// outermost interceptor also maps errors to gRPC statuses and recovers panics, per call.

// maxLoggedSQL bounds the statement text put in a log record.
const maxLoggedSQL = 2 << 10

// callInfo is what a call's handlers tell its log record.
type callInfo struct {
	method string
	start  time.Time

	mu       sync.Mutex
	user     string
	query    queryID
	sql      string
	rows     int64
	bytesOut int64
	bytesIn  int64
}

type callKey struct{}

func callFrom(ctx context.Context) *callInfo {
	c, _ := ctx.Value(callKey{}).(*callInfo)
	return c
}

// noteUser records the authenticated user of the call.
func noteUser(ctx context.Context, user string) {
	if c := callFrom(ctx); c != nil {
		c.mu.Lock()
		c.user = user
		c.mu.Unlock()
	}
}

// noteQuery records the query id the call plans or serves.
func noteQuery(ctx context.Context, id queryID) {
	if c := callFrom(ctx); c != nil {
		c.mu.Lock()
		c.query = id
		c.mu.Unlock()
	}
}

// noteSQL records the statement text the call plans.
func noteSQL(ctx context.Context, sql string) {
	if c := callFrom(ctx); c != nil {
		if len(sql) > maxLoggedSQL {
			sql = truncateAt(sql, maxLoggedSQL)
		}
		c.mu.Lock()
		c.sql = sql
		c.mu.Unlock()
	}
}

// noteRows adds rows the call streamed.
func noteRows(ctx context.Context, rows int64) {
	if c := callFrom(ctx); c != nil {
		c.mu.Lock()
		c.rows += rows
		c.mu.Unlock()
	}
}

// logEnd writes the call's closing record: it ended with err (a status error) after dur, and
// level is its level (callLevel).
func (c *callInfo) logEnd(log *slog.Logger, err error, dur time.Duration, level slog.Level) {
	c.mu.Lock()
	defer c.mu.Unlock()
	attrs := []slog.Attr{
		slog.String("method", c.method), slog.String("user", c.user),
		slog.Duration("duration", dur), slog.String("code", status.Code(err).String()),
	}
	if !c.query.isZero() {
		attrs = append(attrs, slog.String("query_id", c.query.String()))
	}
	if c.sql != "" {
		attrs = append(attrs, slog.String("sql", c.sql))
	}
	if c.rows > 0 || c.bytesOut > 0 || c.bytesIn > 0 {
		attrs = append(attrs, slog.Int64("rows", c.rows), slog.Int64("bytes_out", c.bytesOut), slog.Int64("bytes_in", c.bytesIn))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", status.Convert(err).Message()))
	}
	// Stamped when the call ended, not when the call log's writer gets to it.
	ctx := context.Background()
	if !log.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(c.start.Add(dur), level, "rpc", 0)
	r.AddAttrs(attrs...)
	_ = log.Handler().Handle(ctx, r) // a handler's write error has nowhere better to go
}

// unaryCalls is the outermost unary interceptor: call record, logs, panic recovery, error
// mapping.
func unaryCalls(cl *callLog) grpc.UnaryServerInterceptor {
	log := cl.log
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		c := &callInfo{method: info.FullMethod, start: time.Now()}
		ctx = context.WithValue(ctx, callKey{}, c)
		log.Debug("rpc start", "method", c.method)
		defer func() {
			if p := recover(); p != nil {
				err = recovered(log, info.FullMethod, p)
			}
			err = toStatusError(err)
			cl.end(c, err, time.Since(c.start))
		}()
		return h(ctx, req)
	}
}

// streamCalls is the outermost stream interceptor: call record, bytes counted, logs, panic
// recovery, error mapping.
func streamCalls(cl *callLog) grpc.StreamServerInterceptor {
	log := cl.log
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		c := &callInfo{method: info.FullMethod, start: time.Now()}
		cs := &countingStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), callKey{}, c), call: c}
		log.Debug("rpc start", "method", c.method)
		defer func() {
			if p := recover(); p != nil {
				err = recovered(log, info.FullMethod, p)
			}
			err = toStatusError(err)
			cl.end(c, err, time.Since(c.start))
		}()
		return h(srv, cs)
	}
}

// countingStream counts the Flight data bytes a stream sends and receives.
type countingStream struct {
	grpc.ServerStream
	ctx  context.Context
	call *callInfo
}

func (s *countingStream) Context() context.Context { return s.ctx }

func (s *countingStream) SendMsg(m any) error {
	err := s.ServerStream.SendMsg(m)
	if fd, ok := m.(*flight.FlightData); ok && err == nil {
		s.call.mu.Lock()
		s.call.bytesOut += int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
		s.call.mu.Unlock()
	}
	return err
}

func (s *countingStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if fd, ok := m.(*flight.FlightData); ok && err == nil {
		s.call.mu.Lock()
		s.call.bytesIn += int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
		s.call.mu.Unlock()
	}
	return err
}
