// Command flightd serves Lance tables over Arrow Flight SQL.
//
//	flightd serve --root <folder or object-store URL> --addr <host:port> [--config file.json|file.toml]
//	flightd sql   --root <folder or object-store URL> "<statement>"
//	flightd version
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "flightd:", err)
		os.Exit(1)
	}
}
