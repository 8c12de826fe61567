package main

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/parse"
)

// isWrite reports whether sql is an INSERT, UPDATE or DELETE (false when it does not parse:
// the query path reports the syntax error).
func isWrite(sql string) bool {
	stmt, err := parse.Parse(sql)
	return err == nil && bind.IsWrite(stmt)
}

// runWrite runs a write statement, locally or on a server (ExecuteUpdate), and prints the
// number of rows it affected.
func runWrite(ctx context.Context, stdout io.Writer, server, user, password, root, sql string) error {
	var (
		n   int64
		err error
	)
	if server != "" {
		n, err = remoteWrite(ctx, server, user, password, sql)
	} else {
		n, err = localWrite(ctx, root, sql)
	}
	if err != nil {
		return err
	}
	unit := "rows"
	if n == 1 {
		unit = "row"
	}
	fmt.Fprintf(stdout, "%d %s affected\n", n, unit)
	return nil
}

// localWrite runs a write over the tables under root in this process.
func localWrite(ctx context.Context, root, sql string) (int64, error) {
	cat, err := openCatalog(ctx, root, 0)
	if err != nil {
		return 0, err
	}
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Mem: memory.NewGoAllocator(), Version: version})
	if err != nil {
		return 0, err
	}
	op, err := srv.Execute(ctx, sql)
	if err != nil {
		return 0, err
	}
	defer op.Close()
	b, err := op.Next(ctx)
	if err != nil {
		return 0, err
	}
	if b == nil || b.NumCols() != 1 || b.NumRows() != 1 {
		return 0, fmt.Errorf("write: no row count")
	}
	defer b.Release()
	col, ok := b.Column(0).(*array.Int64)
	if !ok {
		return 0, fmt.Errorf("write: row count is %s, not int64", b.Column(0).DataType())
	}
	return col.Value(0), nil
}

// remoteWrite sends a write to a Flight SQL server as CommandStatementUpdate.
func remoteWrite(ctx context.Context, addr, user, password, sql string) (int64, error) {
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, fmt.Errorf("connect %s: %w", addr, err)
	}
	defer cl.Close()
	if user != "" {
		if ctx, err = cl.Client.AuthenticateBasicToken(ctx, user, password); err != nil {
			return 0, fmt.Errorf("authenticate to %s: %w", addr, err)
		}
	}
	return cl.ExecuteUpdate(ctx, sql)
}
