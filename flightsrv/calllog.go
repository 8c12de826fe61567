package flightsrv

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// callLog writes the calls' closing records (callInfo.logEnd) on a goroutine of its own, so
// that formatting a record and writing it out (a system call per record) are not on the
// call's path: the interceptors run before gRPC sends a unary call's response and a
// stream's trailers, and a client waits for both. A record keeps every field it had when
// written in place (the duration is measured when the call ends), and records are written
// in the order the calls ended. Records at a level the logger does not enable are not
// queued at all.
//
// The goroutine starts with the gRPC server (NewFlightServer) and stops when it stops; a
// call that ends after that (Stop does not wait for handlers) writes its record itself.
type callLog struct {
	log  *slog.Logger
	recs chan callRecord

	mu     sync.RWMutex // held to send on recs (read) and to close it (write)
	closed bool
	done   chan struct{} // closed once the writer has written every queued record
}

// callRecord is one call's closing record, waiting to be written.
type callRecord struct {
	c     *callInfo
	err   error // the call's status error
	dur   time.Duration
	level slog.Level
}

// callLogQueue bounds the records waiting for the writer; a call that finds the queue full
// waits for room (the log's own pace, as when records were written in place).
const callLogQueue = 256

// newCallLog returns a call log writing to log; start starts its writer.
func newCallLog(log *slog.Logger) *callLog {
	return &callLog{log: log, recs: make(chan callRecord, callLogQueue), done: make(chan struct{})}
}

// start starts the writer goroutine; close stops it.
func (l *callLog) start() {
	go func() {
		defer close(l.done)
		for r := range l.recs {
			r.c.logEnd(l.log, r.err, r.dur, r.level)
		}
	}()
}

// end writes (or queues) the closing record of call c, which ended with err (a status error)
// after dur.
func (l *callLog) end(c *callInfo, err error, dur time.Duration) {
	level := callLevel(status.Code(err))
	if !l.log.Enabled(context.Background(), level) {
		return
	}
	l.mu.RLock()
	if !l.closed {
		l.recs <- callRecord{c: c, err: err, dur: dur, level: level}
		l.mu.RUnlock()
		return
	}
	l.mu.RUnlock()
	c.logEnd(l.log, err, dur, level)
}

// close stops the writer once it has written every queued record. Safe to call more than
// once; a log never started (start) must not be closed.
func (l *callLog) close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.recs)
	}
	l.mu.Unlock()
	<-l.done
}

// callLevel is the level of a call's closing record with status code code: Info when it
// succeeded or was cancelled, Error for the codes of server faults, Warn otherwise.
func callLevel(code codes.Code) slog.Level {
	switch code {
	case codes.OK, codes.Canceled:
		return slog.LevelInfo
	case codes.Internal, codes.Unknown, codes.DataLoss:
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}
