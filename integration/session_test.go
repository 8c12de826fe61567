package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestSessionOptions sets, reads back and closes session options the way JDBC (catalog) and
// ADBC (catalog, schema, CloseSession) do; the session travels in a cookie.
//
// The test carries the cookie itself instead of using arrow-go's client cookie middleware:
// that middleware drops a stream's trailer cookies when the stream's context is cancelled
// before its EOF is processed (a race inside arrow-go v18.8.0's client interceptor), which
// made this test flaky.
func TestSessionOptions(t *testing.T) {
	srv := itest.StartServer(t, t.TempDir(), flightsrv.Config{})
	cl, err := flightsql.NewClient(srv.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	var jar cookieJar
	str := func(s string) *flight.SessionOptionValue {
		v, err := flight.NewSessionOptionValue(s)
		require.NoError(t, err)
		return &v
	}
	res, err := cl.SetSessionOptions(jar.ctx(), &flight.SetSessionOptionsRequest{SessionOptions: map[string]*flight.SessionOptionValue{
		"catalog": str(flightsrv.CatalogName),
		"schema":  str("nope"),
		"color":   str("blue"),
	}}, jar.opts()...)
	require.NoError(t, err)
	jar.update(t)
	require.Len(t, res.GetErrors(), 2)
	require.Equal(t, flight.SetSessionOptionsResultErrorInvalidValue, res.GetErrors()["schema"].GetValue())
	require.Equal(t, flight.SetSessionOptionsResultErrorInvalidName, res.GetErrors()["color"].GetValue())
	require.NotEmpty(t, jar.cookie, "SetSessionOptions must send a session cookie")

	got, err := cl.GetSessionOptions(jar.ctx(), &flight.GetSessionOptionsRequest{}, jar.opts()...)
	require.NoError(t, err)
	jar.update(t)
	require.Equal(t, flightsrv.CatalogName, got.GetSessionOptions()["catalog"].GetStringValue())
	require.NotContains(t, got.GetSessionOptions(), "schema")

	closed, err := cl.CloseSession(jar.ctx(), &flight.CloseSessionRequest{}, jar.opts()...)
	require.NoError(t, err)
	jar.update(t)
	require.Equal(t, flight.CloseSessionResultClosed, closed.GetStatus())
	require.Empty(t, jar.cookie, "CloseSession must expire the session cookie")
}

// cookieJar keeps the one session cookie, read from the last call's headers and trailers.
type cookieJar struct {
	cookie          *http.Cookie
	header, trailer metadata.MD
}

func (j *cookieJar) ctx() context.Context {
	ctx := context.Background()
	if j.cookie != nil {
		ctx = metadata.AppendToOutgoingContext(ctx, "cookie", j.cookie.Name+"="+j.cookie.Value)
	}
	return ctx
}

func (j *cookieJar) opts() []grpc.CallOption {
	j.header, j.trailer = metadata.MD{}, metadata.MD{}
	return []grpc.CallOption{grpc.Header(&j.header), grpc.Trailer(&j.trailer)}
}

// update applies the Set-Cookie lines of the last call in order; a later one wins.
func (j *cookieJar) update(t *testing.T) {
	t.Helper()
	lines := append(j.header.Get("set-cookie"), j.trailer.Get("set-cookie")...)
	for _, c := range (&http.Response{Header: http.Header{"Set-Cookie": lines}}).Cookies() {
		if c.MaxAge < 0 {
			j.cookie = nil
			continue
		}
		j.cookie = c
	}
}
