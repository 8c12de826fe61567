package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/flightsrv"
)

// runSQL runs one statement against a root, through the same path (planner, Substrait,
// optimizer, executor) the server uses, and prints the result as a text table.
func runSQL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, root := newFlagSet("sql", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("sql: want exactly one statement argument, got %d", fs.NArg())
	}
	cat, err := openCatalog(ctx, *root)
	if err != nil {
		return err
	}
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Mem: memory.NewGoAllocator(), Version: version})
	if err != nil {
		return err
	}
	op, err := srv.Execute(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	defer op.Close()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
	}
	printTable(stdout, op.Schema(), batches)
	return nil
}

// printTable writes batches as an aligned text table followed by a row count.
func printTable(w io.Writer, sc *arrow.Schema, batches []arrow.RecordBatch) {
	rows := [][]string{make([]string, sc.NumFields())}
	for i, f := range sc.Fields() {
		rows[0][i] = f.Name
	}
	for _, b := range batches {
		for r := 0; r < int(b.NumRows()); r++ {
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
