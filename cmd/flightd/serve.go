package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/flightd/flightd/flightsrv"
)

// serveFlags are the options of `flightd serve`.
type serveFlags struct {
	root, addr                   string
	users, secretFile            string
	tlsCert, tlsKey, tlsClientCA string
	allowNoAuth                  bool
	maxEndpoints                 int
	locations                    string
	memoryLimit                  string
}

// runServe starts the Flight SQL server and blocks until ctx is cancelled (SIGINT/SIGTERM),
// then drains open streams and stops.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, root := newFlagSet("serve", stderr)
	var f serveFlags
	fs.StringVar(&f.addr, "addr", envOr("FLIGHTD_ADDR", "127.0.0.1:31337"), "host:port to listen on")
	fs.StringVar(&f.users, "users", envOr("FLIGHTD_USERS", ""), "users file (name:bcrypt-hash per line); enables authentication")
	fs.StringVar(&f.secretFile, "secret-file", envOr("FLIGHTD_SECRET_FILE", ""), "file with the secret that signs tickets and bearer tokens (share it between replicas)")
	fs.StringVar(&f.tlsCert, "tls-cert", envOr("FLIGHTD_TLS_CERT", ""), "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", envOr("FLIGHTD_TLS_KEY", ""), "TLS private key (PEM)")
	fs.StringVar(&f.tlsClientCA, "tls-client-ca", envOr("FLIGHTD_TLS_CLIENT_CA", ""), "CA bundle clients must be signed by (mTLS)")
	fs.IntVar(&f.maxEndpoints, "max-endpoints", 1, "most endpoints (shards of fragments) one scan query is split into")
	fs.StringVar(&f.locations, "locations", envOr("FLIGHTD_LOCATIONS", ""), "comma-separated endpoint URIs of the replicas (default: none, clients reuse their connection)")
	fs.StringVar(&f.memoryLimit, "memory-limit", envOr("FLIGHTD_MEMORY_LIMIT", "0"), "memory one query may reserve for hash tables and sorts, e.g. 2GiB (0: unlimited)")
	fs.BoolVar(&f.allowNoAuth, "allow-no-auth", false, "serve without authentication on a non-loopback address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %v", fs.Args())
	}
	f.root = *root
	cfg, err := f.config(ctx)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg.Logger = log
	srv, err := flightsrv.New(cfg)
	if err != nil {
		return err
	}
	flightSrv, bound, err := srv.Listen(f.addr)
	if err != nil {
		return err
	}
	scheme, enc := "grpc", "false"
	if cfg.TLS != nil {
		scheme, enc = "grpc+tls", "true"
	}
	fmt.Fprintf(stdout, "flightd: listening on %s (root %s)\n", bound, f.root)
	fmt.Fprintf(stdout, "  pyarrow/ADBC: %s://%s\n  JDBC:         jdbc:arrow-flight-sql://%s/?useEncryption=%s\n", scheme, bound, bound, enc)
	<-ctx.Done()
	log.Info("shutting down: draining open streams")
	flightSrv.Shutdown()
	return nil
}

// config turns the flags into a server configuration.
func (f serveFlags) config(ctx context.Context) (flightsrv.Config, error) {
	cat, err := openCatalog(ctx, f.root)
	if err != nil {
		return flightsrv.Config{}, err
	}
	cfg := flightsrv.Config{Catalog: cat, Version: version, MaxEndpoints: f.maxEndpoints}
	if cfg.Exec.MemoryLimit, err = parseBytes(f.memoryLimit); err != nil {
		return cfg, fmt.Errorf("--memory-limit: %w", err)
	}
	if f.locations != "" {
		cfg.Locations = strings.Split(f.locations, ",")
	}
	if f.secretFile != "" {
		if cfg.Secret, err = os.ReadFile(f.secretFile); err != nil {
			return cfg, fmt.Errorf("secret: %w", err)
		}
	}
	if cfg.Auth, err = f.authenticator(cfg.Secret); err != nil {
		return cfg, err
	}
	if cfg.Auth == nil && !f.allowNoAuth && !isLoopback(f.addr) {
		return cfg, fmt.Errorf("refusing to serve %s without authentication: give --users, or --allow-no-auth", f.addr)
	}
	if cfg.TLS, err = f.tlsConfig(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func (f serveFlags) authenticator(secret []byte) (*flightsrv.Authenticator, error) {
	if f.users == "" {
		return nil, nil
	}
	users, err := flightsrv.LoadUsers(f.users)
	if err != nil {
		return nil, err
	}
	return flightsrv.NewAuthenticator(users, secret, 0)
}

func (f serveFlags) tlsConfig() (*tls.Config, error) {
	if f.tlsCert == "" && f.tlsKey == "" {
		if f.tlsClientCA != "" {
			return nil, errors.New("--tls-client-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	return flightsrv.LoadTLS(f.tlsCert, f.tlsKey, f.tlsClientCA)
}

// isLoopback reports whether addr listens only on a loopback interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseBytes reads a size such as 512MiB, 2GiB, 1GB or 1048576.
func parseBytes(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, mult := strings.TrimSpace(v), int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || (mult > 1 && n > math.MaxInt64/mult) {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	return n * mult, nil
}
