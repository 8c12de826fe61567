package flightsrv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/dberr"
)

// maxMessage bounds the text of a status: gRPC sends it in a header, and a huge one (an
// error repeated per row, say) makes the transport reset the stream instead of reporting it.
const maxMessage = 4 << 10

// statusOf maps an error to a gRPC status. This is the one place that knows the mapping.
func statusOf(err error) *status.Status {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		if len(s.Message()) > maxMessage {
			return status.New(s.Code(), truncate(s.Message()))
		}
		return s
	}
	return status.New(codeOf(err), truncate(err.Error()))
}

// truncate shortens a message to maxMessage bytes (on a UTF-8 boundary), saying so.
func truncate(msg string) string { return truncateAt(msg, maxMessage) }

// truncateAt shortens msg to n bytes (on a UTF-8 boundary), saying how much was cut.
func truncateAt(msg string, n int) string {
	if len(msg) <= n {
		return msg
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + fmt.Sprintf(" ... (%d more bytes)", len(msg)-cut)
}

func codeOf(err error) codes.Code {
	switch {
	case errors.Is(err, ErrShuttingDown):
		return codes.Unavailable
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, catalog.ErrNoSuchTable), errors.Is(err, catalog.ErrNoSuchVersion):
		return codes.NotFound
	case errors.Is(err, catalog.ErrNotSupported):
		return codes.Unimplemented
	case errors.Is(err, catalog.ErrTableExists):
		return codes.AlreadyExists
	case errors.Is(err, catalog.ErrCommitConflict):
		return codes.Aborted
	case errors.Is(err, ErrUnauthenticated):
		return codes.Unauthenticated
	}
	kind, ok := dberr.KindOf(err)
	if !ok {
		return codes.Internal
	}
	switch kind {
	case dberr.Parser, dberr.Binder, dberr.Conversion, dberr.OutOfRange, dberr.InvalidInput:
		return codes.InvalidArgument
	case dberr.Catalog:
		return codes.NotFound
	case dberr.NotImplemented:
		return codes.Unimplemented
	case dberr.OutOfMemory:
		return codes.ResourceExhausted
	case dberr.Constraint:
		return codes.Aborted
	case dberr.IO:
		return codes.Unavailable
	default:
		return codes.Internal
	}
}

// toStatusError converts any error to one carrying a gRPC status.
func toStatusError(err error) error {
	if err == nil {
		return nil
	}
	return statusOf(err).Err()
}

// recovered turns a panic value into an Internal error and logs its stack.
func recovered(log *slog.Logger, method string, p any) error {
	log.Error("panic serving request", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return status.Errorf(codes.Internal, "internal error serving %s: %v", method, p)
}
