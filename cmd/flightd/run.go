package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage:
  flightd serve [--root DIR|URL] [--addr HOST:PORT] [--config FILE] ...   serve Flight SQL
                                                    (flightd serve -h lists every flag)
  flightd sql   [--root DIR|URL] "STATEMENT"          run one statement and print the result
  flightd sql   --server HOST:PORT [--user U --password P] "STATEMENT"
  flightd version                                     print the version

--root defaults to $FLIGHTD_ROOT or ./data; --addr to $FLIGHTD_ADDR or 127.0.0.1:31337.
Every serve flag --x-y can also be set by $FLIGHTD_X_Y or by the key x-y in the --config
file (JSON, or TOML for *.toml); a flag wins over the environment, which wins over the file.
Each <name>.lance folder directly under the root is the table <name>.`

// run dispatches a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errors.New("no command given")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "sql":
		return runSQL(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "flightd", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		fmt.Fprintln(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

// envOr returns the environment variable's value, or def when it is unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// newFlagSet returns a flag set for a subcommand with the shared --root flag.
func newFlagSet(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", envOr("FLIGHTD_ROOT", "./data"), "folder or object-store URL holding <name>.lance tables")
	return fs, root
}

// openCatalog opens the Lance catalog at root. A local root must be an existing folder: a
// typo must not silently serve an empty catalog.
// cacheBytes is the budget of the manifest and file-metadata caches; 0 means lancecat's default.
func openCatalog(ctx context.Context, root string, cacheBytes int64) (*lancecat.Catalog, error) {
	return openCatalogWith(ctx, root, lancecat.Options{CacheBytes: cacheBytes})
}

// openCatalogWith is openCatalog with all of the catalog's options.
func openCatalogWith(ctx context.Context, root string, opts lancecat.Options) (*lancecat.Catalog, error) {
	u, err := rootURL(root)
	if err != nil {
		return nil, err
	}
	store, err := blobstore.Open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", root, err)
	}
	return lancecat.NewWithOptions(store, opts), nil
}

// rootURL turns a --root value into a store URL, checking that a local folder exists.
func rootURL(root string) (string, error) {
	if strings.Contains(root, "://") && !strings.HasPrefix(root, "file://") {
		return root, nil
	}
	path := strings.TrimPrefix(root, "file://")
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("root folder %s does not exist", abs)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("root %s is not a folder", abs)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}
