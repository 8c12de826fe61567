package flightsrv

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

func testAuthenticator(t *testing.T) *Authenticator {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	a, err := NewAuthenticator(map[string][]byte{"ann": hash}, []byte("key"), time.Hour)
	require.NoError(t, err)
	return a
}

func TestAuthenticatorLoginAndVerify(t *testing.T) {
	a := testAuthenticator(t)
	tok, err := a.Login("ann", "s3cret")
	require.NoError(t, err)
	user, err := a.Verify(tok)
	require.NoError(t, err)
	require.Equal(t, "ann", user)

	_, err = a.Login("ann", "wrong")
	require.ErrorIs(t, err, ErrUnauthenticated)
	_, err = a.Login("bob", "s3cret")
	require.ErrorIs(t, err, ErrUnauthenticated)
}

func TestAuthenticatorRejectsForgedAndExpiredTokens(t *testing.T) {
	a := testAuthenticator(t)
	tok, err := a.Login("ann", "s3cret")
	require.NoError(t, err)

	other, err := NewAuthenticator(a.users, []byte("another key"), time.Hour)
	require.NoError(t, err)
	_, err = other.Verify(tok)
	require.ErrorIs(t, err, ErrUnauthenticated, "a token signed with another key")

	forged := []byte(tok)
	forged[len(forged)/2] ^= 1
	_, err = a.Verify(string(forged))
	require.ErrorIs(t, err, ErrUnauthenticated)
	_, err = a.Verify("")
	require.ErrorIs(t, err, ErrUnauthenticated)

	a.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	_, err = a.Verify(tok)
	require.ErrorIs(t, err, ErrUnauthenticated)
	require.Contains(t, err.Error(), "expired")
}

func TestLoadUsers(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	require.NoError(t, err)
	dir := t.TempDir()
	good := filepath.Join(dir, "users")
	require.NoError(t, os.WriteFile(good, []byte("# users\n\nann:"+string(hash)+"\n"), 0o600))
	users, err := LoadUsers(good)
	require.NoError(t, err)
	require.Contains(t, users, "ann")

	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("ann:plaintext\n"), 0o600))
	_, err = LoadUsers(bad)
	require.ErrorContains(t, err, "not a bcrypt hash")
}
