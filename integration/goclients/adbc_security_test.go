package goclients

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	adbcflight "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// adbcCount opens an ADBC database with opts, runs SELECT count(*) FROM t and returns the
// count as text, or the first error (from Open or from the query).
func adbcCount(t *testing.T, opts map[string]string) (string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	db, err := adbcDriver(mem).NewDatabase(opts)
	if err != nil {
		return "", err
	}
	defer func() { require.NoError(t, db.Close()) }()
	cn, err := db.Open(context.Background())
	if err != nil {
		return "", err
	}
	defer func() { require.NoError(t, cn.Close()) }()
	res, err := adbcQuery(context.Background(), t, cn, "SELECT count(*) FROM t")
	if err != nil {
		return "", err
	}
	require.Len(t, res.Rows, 1)
	return res.Rows[0][0], nil
}

// adbcCode is the ADBC status of err (StatusOK when err is not an adbc.Error).
func adbcCode(err error) adbc.Status {
	var ae adbc.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return adbc.StatusOK
}

// TestADBCAuth connects the ADBC driver with basic credentials (the driver trades them for a
// bearer token in the handshake) and with a bearer token in the authorization header; wrong,
// missing and forged credentials are refused as Unauthenticated.
func TestADBCAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	auth, err := flightsrv.NewAuthenticator(map[string][]byte{"ann": hash}, nil, time.Hour)
	require.NoError(t, err)
	srv := itest.StartServer(t, tables(t), flightsrv.Config{Auth: auth})
	token, err := auth.Login("ann", "s3cret")
	require.NoError(t, err)
	uri := "grpc://" + srv.Addr

	cases := []struct {
		name string
		opts map[string]string
		ok   bool
	}{
		{"basic", map[string]string{adbc.OptionKeyURI: uri, adbc.OptionKeyUsername: "ann", adbc.OptionKeyPassword: "s3cret"}, true},
		{"bearer header", map[string]string{adbc.OptionKeyURI: uri, adbcflight.OptionAuthorizationHeader: "Bearer " + token}, true},
		{"wrong password", map[string]string{adbc.OptionKeyURI: uri, adbc.OptionKeyUsername: "ann", adbc.OptionKeyPassword: "nope"}, false},
		{"unknown user", map[string]string{adbc.OptionKeyURI: uri, adbc.OptionKeyUsername: "bob", adbc.OptionKeyPassword: "s3cret"}, false},
		{"no credentials", map[string]string{adbc.OptionKeyURI: uri}, false},
		{"forged token", map[string]string{adbc.OptionKeyURI: uri, adbcflight.OptionAuthorizationHeader: "Bearer " + token[:len(token)-4] + "AAAA"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := adbcCount(t, c.opts)
			if c.ok {
				require.NoError(t, err)
				require.Equal(t, "1000", n)
				return
			}
			require.Error(t, err)
			require.Equal(t, adbc.StatusUnauthenticated, adbcCode(err), "%v", err)
		})
	}
}

// pemCert encodes DER certificates as PEM.
func pemCert(ders ...[]byte) string {
	var out []byte
	for _, d := range ders {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d})...)
	}
	return string(out)
}

// TestADBCTLSAndMutualTLS connects the ADBC driver over TLS (the test CA passed as root
// certificates) and mutual TLS (a client certificate and key as PEM); a client that does not
// trust the CA, or has no certificate for an mTLS server, is refused.
func TestADBCTLSAndMutualTLS(t *testing.T) {
	root := tables(t)
	ca := itest.NewTestCA(t)
	serverCert := ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	clientCert := ca.Issue(t, "client", x509.ExtKeyUsageClientAuth)
	key, err := x509.MarshalPKCS8PrivateKey(clientCert.PrivateKey)
	require.NoError(t, err)
	caPEM := pemCert(ca.Cert.Raw)
	certPEM, keyPEM := pemCert(clientCert.Certificate...), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}))

	tlsSrv := itest.StartServer(t, root, flightsrv.Config{TLS: &tls.Config{Certificates: []tls.Certificate{serverCert}, MinVersion: tls.VersionTLS12}})
	mtlsSrv := itest.StartServer(t, root, flightsrv.Config{TLS: &tls.Config{
		Certificates: []tls.Certificate{serverCert}, ClientCAs: ca.Pool,
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
	}})
	cases := []struct {
		name string
		opts map[string]string
		ok   bool
	}{
		{"tls", map[string]string{adbc.OptionKeyURI: "grpc+tls://" + tlsSrv.Addr, adbcflight.OptionSSLRootCerts: caPEM}, true},
		{"tls, CA not trusted", map[string]string{adbc.OptionKeyURI: "grpc+tls://" + tlsSrv.Addr}, false},
		{"plaintext to a TLS server", map[string]string{adbc.OptionKeyURI: "grpc://" + tlsSrv.Addr}, false},
		{"mtls", map[string]string{adbc.OptionKeyURI: "grpc+tls://" + mtlsSrv.Addr, adbcflight.OptionSSLRootCerts: caPEM,
			adbcflight.OptionMTLSCertChain: certPEM, adbcflight.OptionMTLSPrivateKey: keyPEM}, true},
		{"mtls without a client certificate", map[string]string{adbc.OptionKeyURI: "grpc+tls://" + mtlsSrv.Addr, adbcflight.OptionSSLRootCerts: caPEM}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := adbcCount(t, c.opts)
			if c.ok {
				require.NoError(t, err)
				require.Equal(t, "1000", n)
				return
			}
			require.Error(t, err)
		})
	}
}

// TestDatabaseSQLAuthOverTLS uses database/sql through ADBC's sqldriver against a server that
// requires TLS and basic authentication, with everything in the data source name.
func TestDatabaseSQLAuthOverTLS(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	auth, err := flightsrv.NewAuthenticator(map[string][]byte{"ann": hash}, nil, time.Hour)
	require.NoError(t, err)
	ca := itest.NewTestCA(t)
	srv := itest.StartServer(t, tables(t), flightsrv.Config{Auth: auth, TLS: ca.ServerTLS(t)})
	base := adbc.OptionKeyURI + "=grpc+tls://" + srv.Addr + ";" + adbcflight.OptionSSLRootCerts + "=" + pemCert(ca.Cert.Raw)

	cases := []struct {
		name, creds string
		ok          bool
	}{
		{"right password", ";username=ann;password=s3cret", true},
		{"wrong password", ";username=ann;password=nope", false},
		{"no credentials", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := openSQLDSN(t, base+c.creds)
			var n int64
			err := db.QueryRowContext(context.Background(), "SELECT count(*) FROM t").Scan(&n)
			if c.ok {
				require.NoError(t, err)
				require.Equal(t, int64(1000), n)
				return
			}
			require.Equal(t, adbc.StatusUnauthenticated, adbcCode(err), "%v", err)
		})
	}
}
