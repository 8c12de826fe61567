package flightsrv

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	flightpb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/session"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/flightd/flightd/internal/dberr"
)

// Sessions are stateless: the options live in a cookie the client sends back (arrow-go's
// stateless session manager), so any replica serves any session. JDBC (`catalog=`,
// setCatalog) and ADBC (current catalog/schema; CloseSession on every close) use them.
//
// Known options: "catalog" and "schema", which must name flightd's one catalog and schema,
// and the time-travel options flightd.as_of and flightd.version.<table> (asof.go). An option
// set without a value is erased.

// sessionMiddleware loads and stores the session of every call. A session cookie that does
// not decode is refused with INVALID_ARGUMENT (arrow-go's middleware would panic on it).
func sessionMiddleware() []flight.ServerMiddleware {
	check := func(ctx context.Context) error {
		if !hasCookie(ctx) {
			return nil // parsing no cookies still costs an http.Request
		}
		c, err := session.GetIncomingCookieByName(ctx, session.StatelessSessionCookieName)
		if err != nil {
			return nil // no session cookie (or none that parses as a cookie): a new session
		}
		raw, err := base64.StdEncoding.DecodeString(c.Value)
		if err == nil {
			err = proto.Unmarshal(raw, &flight.GetSessionOptionsResult{})
		}
		if err != nil {
			return dberr.Wrap(dberr.InvalidInput, err, "invalid session cookie %s", session.StatelessSessionCookieName)
		}
		return nil
	}
	guard := flight.ServerMiddleware{
		Unary: func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := check(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		},
		Stream: func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := check(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		},
	}
	sess := flight.CreateServerMiddleware(session.NewServerSessionMiddleware(session.NewStatelessServerSessionManager()))
	return []flight.ServerMiddleware{guard, lazySessions(sess)}
}

// lazySessions runs arrow-go's session middleware only for calls that have a session or may
// start one: calls that send a cookie, and actions (SetSessionOptions, GetSessionOptions,
// CloseSession). Any other call without a cookie has an empty session, which is what the
// middleware would give it too; skipping it saves building a new session and its cookie,
// which the middleware would put in the call's headers and trailers, for every call of a
// client that keeps no cookies (pyarrow's default).
func lazySessions(sess flight.ServerMiddleware) flight.ServerMiddleware {
	return flight.ServerMiddleware{
		Unary: func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if !hasCookie(ctx) {
				return h(ctx, req)
			}
			return sess.Unary(ctx, req, info, h)
		},
		Stream: func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if !hasCookie(ss.Context()) && !strings.HasSuffix(info.FullMethod, "/DoAction") {
				return h(srv, ss)
			}
			return sess.Stream(srv, ss, info, h)
		},
	}
}

// hasCookie reports whether the call sent a cookie header.
func hasCookie(ctx context.Context) bool {
	return len(metadata.ValueFromIncomingContext(ctx, "cookie")) > 0
}

// checkSessionOption validates one option; it returns the error kind, or -1 when it is valid.
func checkSessionOption(name string, v *flight.SessionOptionValue) flightpb.SetSessionOptionsResult_ErrorValue {
	if _, _, ok := versionSetting(name); ok {
		if checkVersionOption(name, v) != nil {
			return flight.SetSessionOptionsResultErrorInvalidValue
		}
		return -1
	}
	want := ""
	switch name {
	case "catalog":
		want = CatalogName
	case "schema":
		want = SchemaName
	default:
		return flight.SetSessionOptionsResultErrorInvalidName
	}
	if v.GetStringValue() != want {
		return flight.SetSessionOptionsResultErrorInvalidValue
	}
	return -1
}

// SetSessionOptions sets the valid options and reports an error for each invalid one.
func (s *Server) SetSessionOptions(ctx context.Context, req *flight.SetSessionOptionsRequest) (*flight.SetSessionOptionsResult, error) {
	sess, err := session.GetSessionFromContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	res := &flight.SetSessionOptionsResult{}
	for name, v := range req.GetSessionOptions() {
		if v.GetOptionValue() == nil { // no value: erase the option
			sess.EraseSessionOption(name)
			continue
		}
		if kind := checkSessionOption(name, v); kind >= 0 {
			if res.Errors == nil {
				res.Errors = map[string]*flight.SetSessionOptionsResultError{}
			}
			res.Errors[name] = &flight.SetSessionOptionsResultError{Value: kind}
			continue
		}
		sess.SetSessionOption(name, v)
	}
	return res, nil
}

// GetSessionOptions returns the session's options.
func (s *Server) GetSessionOptions(ctx context.Context, _ *flight.GetSessionOptionsRequest) (*flight.GetSessionOptionsResult, error) {
	sess, err := session.GetSessionFromContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return &flight.GetSessionOptionsResult{SessionOptions: sess.GetSessionOptions()}, nil
}

// CloseSession ends the session (its cookie is cleared).
func (s *Server) CloseSession(ctx context.Context, _ *flight.CloseSessionRequest) (*flight.CloseSessionResult, error) {
	sess, err := session.GetSessionFromContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if err := sess.Close(); err != nil {
		return nil, fmt.Errorf("close session: %w", err)
	}
	return &flight.CloseSessionResult{Status: flight.CloseSessionResultClosed}, nil
}
