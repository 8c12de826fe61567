package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestSessionOptions sets, reads back and closes session options the way JDBC (catalog) and
// ADBC (catalog, schema, CloseSession) do; the session travels in a cookie.
func TestSessionOptions(t *testing.T) {
	srv := itest.StartServer(t, t.TempDir(), flightsrv.Config{})
	ctx := context.Background()
	cl, err := flightsql.NewClient(srv.Addr, nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()},
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	str := func(s string) *flight.SessionOptionValue {
		v, err := flight.NewSessionOptionValue(s)
		require.NoError(t, err)
		return &v
	}
	res, err := cl.SetSessionOptions(ctx, &flight.SetSessionOptionsRequest{SessionOptions: map[string]*flight.SessionOptionValue{
		"catalog": str(flightsrv.CatalogName),
		"schema":  str("nope"),
		"color":   str("blue"),
	}})
	require.NoError(t, err)
	require.Len(t, res.GetErrors(), 2)
	require.Equal(t, flight.SetSessionOptionsResultErrorInvalidValue, res.GetErrors()["schema"].GetValue())
	require.Equal(t, flight.SetSessionOptionsResultErrorInvalidName, res.GetErrors()["color"].GetValue())

	got, err := cl.GetSessionOptions(ctx, &flight.GetSessionOptionsRequest{})
	require.NoError(t, err)
	require.Equal(t, flightsrv.CatalogName, got.GetSessionOptions()["catalog"].GetStringValue())
	require.NotContains(t, got.GetSessionOptions(), "schema")

	closed, err := cl.CloseSession(ctx, &flight.CloseSessionRequest{})
	require.NoError(t, err)
	require.Equal(t, flight.CloseSessionResultClosed, closed.GetStatus())
}
