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
	"time"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
)

// serveFlags are the options of `flightd serve`.
type serveFlags struct {
	root, addr                   string
	config                       string
	users, secretFile            string
	tlsCert, tlsKey, tlsClientCA string
	allowNoAuth                  bool
	maxEndpoints                 int
	locations                    string
	memoryLimit, maxRecvSize     string
	cacheBytes, dataCacheBytes   string
	gcPercent                    int
	shutdownTimeout              time.Duration
	logLevel, logFormat          string
}

// parseServeFlags reads the options from args, the environment and the config file
// (config.go has the precedence).
func parseServeFlags(args []string, stderr io.Writer) (serveFlags, error) {
	fs, root := newFlagSet("serve", stderr)
	var f serveFlags
	fs.StringVar(&f.config, "config", "", "config file (JSON, or TOML when it ends in .toml) with any of these flags as keys")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:31337", "host:port to listen on")
	fs.StringVar(&f.users, "users", "", "users file (name:bcrypt-hash per line); enables authentication")
	fs.StringVar(&f.secretFile, "secret-file", "", "file with the secret that signs tickets and bearer tokens (share it between replicas)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&f.tlsClientCA, "tls-client-ca", "", "CA bundle clients must be signed by (mTLS)")
	fs.IntVar(&f.maxEndpoints, "max-endpoints", 1, "most endpoints (shards of fragments) one scan query is split into")
	fs.StringVar(&f.locations, "locations", "", "comma-separated endpoint URIs of the replicas (default: none, clients reuse their connection)")
	fs.StringVar(&f.memoryLimit, "memory-limit", "0", "memory one query may reserve for hash tables and sorts, e.g. 2GiB (0: unlimited)")
	fs.StringVar(&f.maxRecvSize, "max-recv-size", "64MiB", "largest message a client may send (parameter and ingest batches)")
	fs.StringVar(&f.cacheBytes, "cache-bytes", "256MiB", "memory for cached manifests and open data-file metadata (0: default, -1: no caching)")
	fs.StringVar(&f.dataCacheBytes, "data-cache-bytes", "1GiB", "memory for data-file page bytes kept between queries (0: default, -1: no caching)")
	fs.IntVar(&f.gcPercent, "gc-percent", defaultGCPercent, "garbage-collector target (as GOGC; the GOGC environment variable wins when set)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long running streams may take to finish before they are cancelled")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug (also logs the start of every call), info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.BoolVar(&f.allowNoAuth, "allow-no-auth", false, "serve without authentication on a non-loopback address")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("serve: unexpected arguments %v", fs.Args())
	}
	if f.config == "" {
		f.config = os.Getenv(envName("config"))
	}
	if err := applySources(fs, f.config); err != nil {
		return f, err
	}
	f.root = *root
	return f, nil
}

// runServe starts the Flight SQL server and blocks until ctx is cancelled (SIGINT/SIGTERM),
// then drains: no new calls, running streams get --shutdown-timeout to finish, then they are
// cancelled.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	log, err := f.logger(stderr)
	if err != nil {
		return err
	}
	cfg, err := f.serverConfig(ctx)
	if err != nil {
		return err
	}
	cfg.Logger = log
	applyGCPercent(f.gcPercent)
	caches, err := f.cacheOptions() // checked by serverConfig already
	if err != nil {
		return err
	}
	applyMemoryLimit(cachesBudget(caches))
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
	log.Info("shutting down: draining open streams", "timeout", f.shutdownTimeout)
	n := srv.Drain(flightSrv, f.shutdownTimeout)
	log.Info("stopped", "cancelled_streams", n)
	return nil
}

// logger builds the server's logger from --log-level and --log-format.
func (f serveFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: want text or json, got %q", f.logFormat)
}

// cacheOptions reads --cache-bytes and --data-cache-bytes.
func (f serveFlags) cacheOptions() (lancecat.Options, error) {
	cacheBytes, err := parseCacheBytes(f.cacheBytes)
	if err != nil {
		return lancecat.Options{}, err
	}
	dataCacheBytes, err := parseCacheBytes(f.dataCacheBytes)
	if err != nil {
		return lancecat.Options{}, fmt.Errorf("--data-cache-bytes: %w", errors.Unwrap(err))
	}
	return lancecat.Options{CacheBytes: cacheBytes, DataCacheBytes: dataCacheBytes}, nil
}

// cachesBudget is the bytes the catalog's caches configured by o may hold together.
func cachesBudget(o lancecat.Options) int64 {
	return cacheBudget(o.CacheBytes, lancecat.DefaultCacheBytes) + cacheBudget(o.DataCacheBytes, lancecat.DefaultDataCacheBytes)
}

// serverConfig turns the flags into a server configuration.
func (f serveFlags) serverConfig(ctx context.Context) (flightsrv.Config, error) {
	caches, err := f.cacheOptions()
	if err != nil {
		return flightsrv.Config{}, err
	}
	cat, err := openCatalogWith(ctx, f.root, caches)
	if err != nil {
		return flightsrv.Config{}, err
	}
	cfg := flightsrv.Config{Catalog: cat, Version: version, MaxEndpoints: f.maxEndpoints}
	if cfg.Exec.MemoryLimit, err = parseBytes(f.memoryLimit); err != nil {
		return cfg, fmt.Errorf("--memory-limit: %w", err)
	}
	recv, err := parseBytes(f.maxRecvSize)
	if err != nil || recv < 1<<10 || recv > math.MaxInt32 {
		return cfg, fmt.Errorf("--max-recv-size: want a size between 1KiB and 2GiB, got %q", f.maxRecvSize)
	}
	cfg.MaxRecvMsgSize = int(recv)
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

// parseCacheBytes reads --cache-bytes: a size, or -1 to turn the caches off.
func parseCacheBytes(v string) (int64, error) {
	if strings.TrimSpace(v) == "-1" {
		return -1, nil
	}
	n, err := parseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("--cache-bytes: %w", err)
	}
	return n, nil
}
