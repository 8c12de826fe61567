// Package s3server starts a real S3-compatible server (versitygw with its posix backend) for
// tests, on 127.0.0.1 only, with one empty bucket.
//
// The binary is $VERSITYGW, else versitygw on PATH, else $(go env GOPATH)/bin/versitygw
// (scripts/install-s3server.sh installs it with go install). When $VERSITYGW is set and the
// binary is missing the test fails; otherwise a missing binary skips the test with a message.
package s3server

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Credentials of the server's root account.
const (
	AccessKey = "flightdtest"
	SecretKey = "flightdtestsecret"
	Region    = "us-east-1"
	Bucket    = "flightd"
)

// Server is a running versitygw.
type Server struct {
	// Endpoint is the server's base URL, http://127.0.0.1:PORT.
	Endpoint string
	// Root is the posix backend directory (the bucket is Root/Bucket).
	Root string
}

// Binary returns the versitygw binary, or "" when none is installed.
func Binary() string {
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	p := filepath.Join(string(trimNL(gopath)), "bin", "versitygw")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Start starts a server for the test and stops it when the test ends. It sets the AWS
// credential and region environment variables (t.Setenv), so child processes and gocloud's
// s3blob in this process authenticate as the root account.
func Start(t *testing.T) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("versitygw is not installed: run scripts/install-s3server.sh (make test does it)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("versitygw %s: %v (run scripts/install-s3server.sh)", bin, err)
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, Bucket), 0o755); err != nil {
		t.Fatalf("create bucket directory: %v", err)
	}
	port := freePort(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", addr, "--quiet", "posix", root)
	logf, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatalf("versitygw log: %v", err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		_ = logf.Close()
	})
	if err := waitListening(addr, done); err != nil {
		log, _ := os.ReadFile(logf.Name())
		t.Fatalf("versitygw did not start: %v\n%s", err, log)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_REGION", Region)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	// versitygw returns no checksums on ranged reads; the SDK would log that on every read.
	t.Setenv("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
	return &Server{Endpoint: "http://" + addr, Root: root}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(addr string, exited <-chan error) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not listening on %s after 20s", addr)
}

// URL returns the blobstore.Open URL of the bucket (gocloud s3blob, path-style, plain HTTP).
func (s *Server) URL() string {
	q := url.Values{}
	q.Set("endpoint", s.Endpoint)
	q.Set("region", Region)
	q.Set("use_path_style", "true")
	q.Set("disable_https", "true")
	return "s3://" + Bucket + "?" + q.Encode()
}

// DatasetURI returns the s3:// URI pylance opens for the dataset at path rel of the bucket.
func (s *Server) DatasetURI(rel string) string { return "s3://" + Bucket + "/" + rel }

// StorageOptions returns pylance's storage_options for this server.
func (s *Server) StorageOptions() map[string]string {
	return map[string]string{
		"endpoint":          s.Endpoint,
		"access_key_id":     AccessKey,
		"secret_access_key": SecretKey,
		"allow_http":        "true",
		"region":            Region,
	}
}
