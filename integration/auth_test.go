package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// startServerWith starts an in-process flightd with the given auth and TLS settings.
func startServerWith(t *testing.T, root string, auth *flightsrv.Authenticator, tlsCfg *tls.Config) *server {
	t.Helper()
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem, Auth: auth, TLS: tlsCfg})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	return &server{addr: addr.String(), mem: mem, stop: fs.Shutdown}
}

func TestBasicAuthAndBearerTokens(t *testing.T) {
	root := writeTables(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	auth, err := flightsrv.NewAuthenticator(map[string][]byte{"ann": hash}, nil, time.Hour)
	require.NoError(t, err)
	srv := startServerWith(t, root, auth, nil)
	defer srv.mem.AssertSize(t, 0)
	defer srv.stop()

	cl, err := flightsql.NewClient(srv.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	ctx := context.Background()
	const sql = "SELECT count(*) FROM t"

	_, err = query(ctx, t, cl, sql)
	require.Equal(t, codes.Unauthenticated, status.Code(err), "no credentials: %v", err)

	_, err = cl.Client.AuthenticateBasicToken(ctx, "ann", "wrong")
	require.Equal(t, codes.Unauthenticated, status.Code(err), "wrong password: %v", err)

	authed, err := cl.Client.AuthenticateBasicToken(ctx, "ann", "s3cret")
	require.NoError(t, err)
	got, err := query(authed, t, cl, sql)
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1000"}}, got.Rows)

	forged := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	_, err = query(forged, t, cl, sql)
	require.Equal(t, codes.Unauthenticated, status.Code(err), "forged token: %v", err)
}

// testCA is a throwaway certificate authority that signs server and client certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "flightd test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

func (ca *testCA) issue(t *testing.T, name string, usage x509.ExtKeyUsage) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestTLSAndMutualTLS(t *testing.T) {
	root := writeTables(t)
	ca := newTestCA(t)
	serverCert := ca.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	clientCert := ca.issue(t, "client", x509.ExtKeyUsageClientAuth)
	ctx := context.Background()

	dial := func(addr string, cfg *tls.Config) *flightsql.Client {
		cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
		require.NoError(t, err)
		return cl
	}

	t.Run("tls", func(t *testing.T) {
		srv := startServerWith(t, root, nil, &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12})
		defer srv.mem.AssertSize(t, 0)
		defer srv.stop()
		cl := dial(srv.addr, &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12})
		defer cl.Close()
		got, err := query(ctx, t, cl, "SELECT count(*) FROM t")
		require.NoError(t, err)
		require.Equal(t, [][]string{{"1000"}}, got.Rows)
	})

	t.Run("mtls", func(t *testing.T) {
		srv := startServerWith(t, root, nil, &tls.Config{
			Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
		})
		defer srv.mem.AssertSize(t, 0)
		defer srv.stop()

		noCert := dial(srv.addr, &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12})
		_, err := query(ctx, t, noCert, "SELECT count(*) FROM t")
		require.Error(t, err, "a client without a certificate must be refused")
		noCert.Close()

		withCert := dial(srv.addr, &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{clientCert}, MinVersion: tls.VersionTLS12})
		defer withCert.Close()
		got, err := query(ctx, t, withCert, "SELECT count(*) FROM t")
		require.NoError(t, err)
		require.Equal(t, [][]string{{"1000"}}, got.Rows)
	})
}
