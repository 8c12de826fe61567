package flightsrv

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// ErrUnauthenticated classifies every authentication failure; the message never says which of
// user or password was wrong.
var ErrUnauthenticated = errors.New("unauthenticated")

// Authenticator checks user passwords (bcrypt hashes) and issues stateless bearer tokens:
// user and expiry signed with an HMAC key. Replicas that share the key accept each other's
// tokens. It is safe for concurrent use.
type Authenticator struct {
	users map[string][]byte // user → bcrypt hash
	key   []byte
	ttl   time.Duration
	now   func() time.Time

	mu     sync.Mutex
	recent map[[32]byte]time.Time // hash of checked Basic credentials → until when they stay trusted
}

// NewAuthenticator builds an Authenticator. A nil or empty key gets a random one (tokens then
// die with the process); ttl ≤ 0 means 12 hours.
func NewAuthenticator(users map[string][]byte, key []byte, ttl time.Duration) (*Authenticator, error) {
	if len(users) == 0 {
		return nil, errors.New("authenticator: no users")
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("authenticator: token key: %w", err)
		}
	}
	if ttl <= 0 {
		ttl = 12 * time.Hour
	}
	return &Authenticator{users: users, key: key, ttl: ttl, now: time.Now, recent: map[[32]byte]time.Time{}}, nil
}

// LoadUsers reads a users file: one "name:bcrypt-hash" per line (as `htpasswd -nB` writes),
// blank lines and lines starting with '#' ignored.
func LoadUsers(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	defer f.Close()
	users := map[string][]byte{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("users file %s line %d: want name:bcrypt-hash", path, n)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("users file %s line %d: user %q: not a bcrypt hash: %w", path, n, name, err)
		}
		users[name] = []byte(hash)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	return users, nil
}

// Login checks a user's password and returns a new bearer token.
func (a *Authenticator) Login(user, password string) (string, error) {
	if err := a.checkPassword(user, password); err != nil {
		return "", err
	}
	return a.issue(user), nil
}

// checkPassword verifies credentials. bcrypt is slow by design, and the Go database/sql
// driver sends Basic credentials on every call, so credentials that passed recently are
// remembered (by hash) for a minute.
func (a *Authenticator) checkPassword(user, password string) error {
	sum := sha256.Sum256([]byte(user + "\x00" + password))
	now := a.now()
	a.mu.Lock()
	until, ok := a.recent[sum]
	a.mu.Unlock()
	if ok && now.Before(until) {
		return nil
	}
	hash, ok := a.users[user]
	if !ok || bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil {
		return fmt.Errorf("%w: invalid user name or password", ErrUnauthenticated)
	}
	a.mu.Lock()
	if len(a.recent) > 10000 {
		clear(a.recent)
	}
	a.recent[sum] = now.Add(time.Minute)
	a.mu.Unlock()
	return nil
}

// issue builds a token: base64url(expiry u64 | user | HMAC-SHA256(key, expiry | user)).
func (a *Authenticator) issue(user string) string {
	body := binary.BigEndian.AppendUint64(nil, uint64(a.now().Add(a.ttl).Unix()))
	body = append(body, user...)
	return base64.RawURLEncoding.EncodeToString(append(body, a.sign(body)...))
}

func (a *Authenticator) sign(body []byte) []byte {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte("flightd token\x00")) // domain separation from tickets signed with the same secret
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a bearer token and returns the user it was issued to.
func (a *Authenticator) Verify(token string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < 8+sha256.Size {
		return "", fmt.Errorf("%w: malformed token", ErrUnauthenticated)
	}
	body, mac := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !hmac.Equal(mac, a.sign(body)) {
		return "", fmt.Errorf("%w: invalid token", ErrUnauthenticated)
	}
	if a.now().Unix() > int64(binary.BigEndian.Uint64(body[:8])) {
		return "", fmt.Errorf("%w: token expired", ErrUnauthenticated)
	}
	user := string(body[8:])
	if _, ok := a.users[user]; !ok {
		return "", fmt.Errorf("%w: unknown user", ErrUnauthenticated)
	}
	return user, nil
}
