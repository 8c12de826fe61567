package jdbc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

// server is an in-process flightd on 127.0.0.1:0 whose every Arrow allocation is checked.
type server struct {
	addr string
	mem  *memory.CheckedAllocator
	stop func()
}

// startServer starts flightd over root with the given auth and TLS settings (nil: none). The
// server is stopped and its allocator checked when the test ends.
func startServer(t *testing.T, root string, auth *flightsrv.Authenticator, tlsCfg *tls.Config) *server {
	t.Helper()
	store, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem, Auth: auth, TLS: tlsCfg})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	s := &server{addr: addr.String(), mem: mem, stop: fs.Shutdown}
	t.Cleanup(func() {
		s.stop()
		mem.AssertSize(t, 0)
	})
	return s
}

// login does a Basic handshake from Go and returns the bearer token flightd issued.
func login(t *testing.T, addr, user, password string) string {
	t.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), user, password)
	require.NoError(t, err)
	md, _ := metadata.FromOutgoingContext(ctx)
	vals := md.Get("authorization")
	require.Len(t, vals, 1, "handshake gave no authorization header")
	token, ok := strings.CutPrefix(vals[0], "Bearer ")
	require.True(t, ok, "handshake gave %q, want a Bearer token", vals[0])
	return token
}

// testCA is a throwaway certificate authority that signs the server certificate.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "flightd JDBC test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key}
}

// serverConfig issues a certificate for 127.0.0.1 and returns a server TLS configuration.
func (ca *testCA) serverConfig(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
}

// writePEM writes the CA certificate as PEM (for the driver's tlsRootCerts) into dir.
func (ca *testCA) writePEM(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// trustStorePassword protects the throwaway PKCS#12 trust store.
const trustStorePassword = "changeit"

// writeTrustStore imports the CA into a PKCS#12 trust store with the JDK's keytool (the
// driver's trustStore property, what DBeaver users configure).
func writeTrustStore(t *testing.T, java, caPEM, dir string) string {
	t.Helper()
	keytool := filepath.Join(filepath.Dir(java), "keytool")
	if _, err := os.Stat(keytool); err != nil {
		keytool = "keytool"
	}
	path := filepath.Join(dir, "truststore.p12")
	cmd := exec.Command(keytool, "-importcert", "-noprompt", "-alias", "flightd-test-ca",
		"-file", caPEM, "-keystore", path, "-storetype", "PKCS12", "-storepass", trustStorePassword)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "keytool: %s", out)
	return path
}
