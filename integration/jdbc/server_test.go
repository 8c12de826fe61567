package jdbc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

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
