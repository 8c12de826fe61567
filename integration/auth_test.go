package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

func TestBasicAuthAndBearerTokens(t *testing.T) {
	root := itest.WriteTables(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	auth, err := flightsrv.NewAuthenticator(map[string][]byte{"ann": hash}, nil, time.Hour)
	require.NoError(t, err)
	srv := itest.StartServer(t, root, flightsrv.Config{Auth: auth, TLS: nil})

	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	const sql = "SELECT count(*) FROM t"

	_, err = itest.Query(ctx, t, cl, sql)
	require.Equal(t, codes.Unauthenticated, status.Code(err), "no credentials: %v", err)

	_, err = cl.Client.AuthenticateBasicToken(ctx, "ann", "wrong")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "wrong password: %v", err)

	authed, err := cl.Client.AuthenticateBasicToken(ctx, "ann", "s3cret")
	require.NoError(t, err)
	got, err := itest.Query(authed, t, cl, sql)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1000"}}, got.Rows)

	forged := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	_, err = itest.Query(forged, t, cl, sql)
	require.Equal(t, codes.Unauthenticated, status.Code(err), "forged token: %v", err)
}

func TestTLSAndMutualTLS(t *testing.T) {
	root := itest.WriteTables(t)
	ca := itest.NewTestCA(t)
	serverCert := ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	clientCert := ca.Issue(t, "client", x509.ExtKeyUsageClientAuth)
	ctx := context.Background()

	dial := func(addr string, cfg *tls.Config) *flightsql.Client {
		return itest.Dial(t, addr, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	}

	t.Run("tls", func(t *testing.T) {
		srv := itest.StartServer(t, root, flightsrv.Config{TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}})
		cl := dial(srv.Addr, &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12})
		got, err := itest.Query(ctx, t, cl, "SELECT count(*) FROM t")
		require.NoError(t, err)
		require.Equal(t, [][]string{{"1000"}}, got.Rows)
	})

	t.Run("mtls", func(t *testing.T) {
		srv := itest.StartServer(t, root, flightsrv.Config{TLS: &tls.Config{
			Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.Pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
		}})

		noCert := dial(srv.Addr, &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12})
		_, err := itest.Query(ctx, t, noCert, "SELECT count(*) FROM t")
		require.Error(t, err, "a client without a certificate must be refused")

		withCert := dial(srv.Addr, &tls.Config{RootCAs: ca.Pool, Certificates: []tls.Certificate{clientCert}, MinVersion: tls.VersionTLS12})
		got, err := itest.Query(ctx, t, withCert, "SELECT count(*) FROM t")
		require.NoError(t, err)
		require.Equal(t, [][]string{{"1000"}}, got.Rows)
	})
}
