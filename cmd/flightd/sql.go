package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/flightsrv"
)

// runSQL runs one statement and prints the result as a text table: against a root folder
// in-process, through the same path (planner, Substrait, optimizer, executor) the server uses,
// or against a running server with --server.
func runSQL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, root := newFlagSet("sql", stderr)
	server := fs.String("server", envOr("FLIGHTD_SERVER", ""), "host:port of a flightd (or any Flight SQL) server to send the statement to, instead of --root")
	user := fs.String("user", envOr("FLIGHTD_USER", ""), "user name for --server")
	password := fs.String("password", envOr("FLIGHTD_PASSWORD", ""), "password for --server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("sql: want exactly one statement argument, got %d", fs.NArg())
	}
	if isWrite(fs.Arg(0)) { // sql_write.go
		return runWrite(ctx, stdout, *server, *user, *password, *root, fs.Arg(0))
	}
	var (
		sc      *arrow.Schema
		batches []arrow.RecordBatch
		err     error
	)
	if *server != "" {
		sc, batches, err = remoteQuery(ctx, *server, *user, *password, fs.Arg(0))
	} else {
		sc, batches, err = localQuery(ctx, *root, fs.Arg(0))
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	if err != nil {
		return err
	}
	printTable(stdout, sc, batches)
	return nil
}

// localQuery runs sql over the tables under root in this process.
func localQuery(ctx context.Context, root, sql string) (*arrow.Schema, []arrow.RecordBatch, error) {
	cat, err := openCatalog(ctx, root, 0)
	if err != nil {
		return nil, nil, err
	}
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Mem: memory.NewGoAllocator(), Version: version})
	if err != nil {
		return nil, nil, err
	}
	op, err := srv.Execute(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	defer op.Close()
	var batches []arrow.RecordBatch
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return nil, batches, err
		}
		if b == nil {
			return op.Schema(), batches, nil
		}
		batches = append(batches, b)
	}
}

// remoteQuery sends sql to a Flight SQL server and reads every endpoint.
func remoteQuery(ctx context.Context, addr, user, password, sql string) (*arrow.Schema, []arrow.RecordBatch, error) {
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, fmt.Errorf("connect %s: %w", addr, err)
	}
	defer cl.Close()
	if user != "" {
		if ctx, err = cl.Client.AuthenticateBasicToken(ctx, user, password); err != nil {
			return nil, nil, fmt.Errorf("authenticate to %s: %w", addr, err)
		}
	}
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	sc, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, fmt.Errorf("result schema: %w", err)
	}
	var batches []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return nil, batches, err
		}
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, batches, err
		}
	}
	return sc, batches, nil
}

// printTable writes batches as an aligned text table followed by a row count.
func printTable(w io.Writer, sc *arrow.Schema, batches []arrow.RecordBatch) {
	rows := [][]string{make([]string, sc.NumFields())}
	for i, f := range sc.Fields() {
		rows[0][i] = f.Name
	}
	for _, b := range batches {
		for r := range int(b.NumRows()) {
			row := make([]string, b.NumCols())
			for c, col := range b.Columns() {
				row[c] = "NULL"
				if col.IsValid(r) {
					row[c] = col.ValueStr(r)
				}
			}
			rows = append(rows, row)
		}
	}
	widths := make([]int, sc.NumFields())
	for _, row := range rows {
		for i, v := range row {
			widths[i] = max(widths[i], len(v))
		}
	}
	for i, row := range rows {
		cells := make([]string, len(row))
		for c, v := range row {
			cells[c] = v + strings.Repeat(" ", widths[c]-len(v))
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(cells, " | "), " "))
		if i == 0 {
			seps := make([]string, len(widths))
			for c, n := range widths {
				seps[c] = strings.Repeat("-", n)
			}
			fmt.Fprintln(w, strings.Join(seps, "-+-"))
		}
	}
	fmt.Fprintf(w, "(%d rows)\n", len(rows)-1)
}
