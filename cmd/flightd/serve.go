package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/flightd/flightd/flightsrv"
)

// runServe starts the Flight SQL server and blocks until ctx is cancelled (SIGINT/SIGTERM),
// then drains open streams and stops.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, root := newFlagSet("serve", stderr)
	addr := fs.String("addr", envOr("FLIGHTD_ADDR", "127.0.0.1:31337"), "host:port to listen on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %v", fs.Args())
	}
	cat, err := openCatalog(ctx, *root)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Logger: log, Version: version})
	if err != nil {
		return err
	}
	flightSrv, bound, err := srv.Listen(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "flightd: listening on %s (root %s)\n", bound, *root)
	fmt.Fprintf(stdout, "  pyarrow/ADBC: grpc://%s\n  JDBC:         jdbc:arrow-flight-sql://%s/?useEncryption=false\n", bound, bound)
	<-ctx.Done()
	log.Info("shutting down: draining open streams")
	flightSrv.Shutdown()
	return nil
}
