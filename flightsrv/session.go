package flightsrv

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
	flightpb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/session"
)

// Sessions are stateless: the options live in a cookie the client sends back (arrow-go's
// stateless session manager), so any replica serves any session. JDBC (`catalog=`,
// setCatalog) and ADBC (current catalog/schema; CloseSession on every close) use them.
//
// Known options: "catalog" and "schema", which must name flightd's one catalog and schema.

// sessionMiddleware loads and stores the session of every call.
func sessionMiddleware() flight.ServerMiddleware {
	return flight.CreateServerMiddleware(session.NewServerSessionMiddleware(session.NewStatelessServerSessionManager()))
}

// checkSessionOption validates one option; it returns the error kind, or -1 when it is valid.
func checkSessionOption(name string, v *flight.SessionOptionValue) flightpb.SetSessionOptionsResult_ErrorValue {
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
