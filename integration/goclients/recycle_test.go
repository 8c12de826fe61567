package goclients

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// A long streamed result reuses the buffers of the batches already sent (the result
// stream's recycling allocator, and decoders writing into unzeroed memory): every row of
// several queries streamed at once must still be exactly what was written.
func TestLongStreamsReuseBuffers(t *testing.T) {
	root := t.TempDir()
	srv := itest.StartServer(t, root, flightsrv.Config{MaxEndpoints: 1})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	const rows = 200_000
	_, err := cl.ExecuteUpdate(ctx, "CREATE TABLE big AS SELECT i, repeat('x', CAST(i % 50 AS INTEGER)) || CAST(i AS VARCHAR) AS s, "+
		"CAST(i AS DOUBLE) * 1.5 AS f, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 1000 END AS n FROM range("+strconv.Itoa(rows)+") r(i)")
	require.NoError(t, err)

	queries := []struct {
		sql  string
		keep func(i int64) bool
	}{
		{"SELECT i, s, f, n FROM big", func(int64) bool { return true }},
		{"SELECT i, s, f, n FROM big WHERE i % 3 <> 0", func(i int64) bool { return i%3 != 0 }},
		{"SELECT i, s, f, n FROM big WHERE i % 5 = 1 LIMIT 30000", func(i int64) bool { return i%5 == 1 }},
	}
	var g errgroup.Group
	for _, q := range queries {
		g.Go(func() error { return checkBigRows(ctx, cl, q.sql, q.keep) })
	}
	require.NoError(t, g.Wait())
}

// checkBigRows streams sql and checks each row against the values CREATE TABLE big wrote.
func checkBigRows(ctx context.Context, cl *flightsql.Client, sql string, keep func(int64) bool) error {
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return err
	}
	seen := 0
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return err
		}
		for rdr.Next() {
			if err := checkBigBatch(rdr.RecordBatch(), keep); err != nil {
				rdr.Release()
				return fmt.Errorf("%s: %w", sql, err)
			}
			seen += int(rdr.RecordBatch().NumRows())
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return err
		}
	}
	if seen == 0 {
		return fmt.Errorf("%s: no rows", sql)
	}
	return nil
}

// checkBigBatch checks the rows of one batch of big.
func checkBigBatch(b arrow.RecordBatch, keep func(int64) bool) error {
	is := b.Column(0).(*array.Int64)
	ss := b.Column(1).(*array.String)
	fs := b.Column(2).(*array.Float64)
	ns := b.Column(3).(*array.Int64)
	for r := range int(b.NumRows()) {
		i := is.Value(r)
		want := strings.Repeat("x", int(i%50)) + strconv.FormatInt(i, 10)
		switch {
		case !keep(i):
			return fmt.Errorf("row %d should not be there", i)
		case ss.Value(r) != want:
			return fmt.Errorf("row %d: s = %q, want %q", i, ss.Value(r), want)
		case fs.Value(r) != float64(i)*1.5:
			return fmt.Errorf("row %d: f = %v, want %v", i, fs.Value(r), float64(i)*1.5)
		case ns.IsNull(r) != (i%7 == 0):
			return fmt.Errorf("row %d: n null = %v", i, ns.IsNull(r))
		case !ns.IsNull(r) && ns.Value(r) != i%1000:
			return fmt.Errorf("row %d: n = %d, want %d", i, ns.Value(r), i%1000)
		}
	}
	return nil
}
