package flightsrv

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// The interceptors here accept what every Flight SQL client sends:
//   - Handshake with "authorization: Basic ..." (pyarrow, ADBC, JDBC user/password): the reply
//     carries "authorization: Bearer <token>" in the headers and the trailer (Java reads headers,
//     C++ reads trailers first, Go joins both).
//   - Handshake with "authorization: Bearer <token>" (JDBC token=): the token is checked and echoed.
//   - Any other call with "Bearer <token>", or with "Basic ..." (the Go database/sql driver sends
//     its credentials on every call and never handshakes).

type userKey struct{}

// UserFromContext returns the authenticated user of a request, or "" without auth.
func UserFromContext(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}

const handshakeSuffix = "/Handshake"

// authorize checks the request's credentials and returns the context carrying the user, and
// for handshakes the header to send back.
func (a *Authenticator) authorize(ctx context.Context, handshake bool) (context.Context, metadata.MD, error) {
	scheme, cred := authorization(ctx)
	var user, token string
	switch {
	case strings.EqualFold(scheme, "Basic"):
		name, pass, err := decodeBasic(cred)
		if err != nil {
			return nil, nil, err
		}
		if handshake {
			if token, err = a.Login(name, pass); err != nil {
				return nil, nil, err
			}
		} else if err := a.checkPassword(name, pass); err != nil {
			return nil, nil, err
		}
		user = name
	case strings.EqualFold(scheme, "Bearer"):
		var err error
		if user, err = a.Verify(cred); err != nil {
			return nil, nil, err
		}
		token = cred
	default:
		return nil, nil, fmt.Errorf("%w: no credentials (send Basic or Bearer authorization)", ErrUnauthenticated)
	}
	var reply metadata.MD
	if handshake {
		reply = metadata.Pairs("authorization", "Bearer "+token)
	}
	noteUser(ctx, user)
	return context.WithValue(ctx, userKey{}, user), reply, nil
}

// authorization returns the scheme and credentials of the request's authorization header.
func authorization(ctx context.Context) (scheme, cred string) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", ""
	}
	scheme, cred, _ = strings.Cut(strings.TrimSpace(vals[0]), " ")
	return scheme, strings.TrimLeft(cred, " ")
}

// decodeBasic decodes "user:password" from base64 (standard, padded or not).
func decodeBasic(cred string) (user, pass string, err error) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(cred)
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: malformed Basic credentials", ErrUnauthenticated)
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", fmt.Errorf("%w: malformed Basic credentials", ErrUnauthenticated)
	}
	return user, pass, nil
}

// unaryAuth checks every unary call.
func (a *Authenticator) unaryAuth() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		ctx, _, err := a.authorize(ctx, false)
		if err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

// streamAuth checks every stream, and answers handshakes with a token.
func (a *Authenticator) streamAuth() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		handshake := strings.HasSuffix(info.FullMethod, handshakeSuffix)
		ctx, reply, err := a.authorize(ss.Context(), handshake)
		if err != nil {
			return err
		}
		if reply != nil {
			if err := ss.SendHeader(reply); err != nil {
				return fmt.Errorf("send token: %w", err)
			}
			ss.SetTrailer(reply)
		}
		return h(srv, &ctxStream{ServerStream: ss, ctx: ctx})
	}
}

// ctxStream is a server stream with a replaced context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }
