package goclients

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/integration/itest"
)

// openADBC opens an ADBC Flight SQL connection to addr whose client-side buffers come from
// mem; the connection and its database are closed when the test ends.
func openADBC(t *testing.T, addr string, mem memory.Allocator) adbc.Connection {
	t.Helper()
	db, err := adbcDriver(mem).NewDatabase(map[string]string{adbc.OptionKeyURI: "grpc://" + addr})
	require.NoError(t, err)
	cn, err := db.Open(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cn.Close())
		require.NoError(t, db.Close())
	})
	return cn
}

// readAll renders every batch of rdr and releases it.
func readAll(t *testing.T, rdr array.RecordReader) itest.Result {
	t.Helper()
	defer rdr.Release()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for rdr.Next() {
		b := rdr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	require.NoError(t, rdr.Err())
	return itest.ToResult(rdr.Schema(), batches)
}

// adbcQuery runs sql on cn through a fresh statement and renders the result.
func adbcQuery(ctx context.Context, t *testing.T, cn adbc.Connection, sql string) (itest.Result, error) {
	t.Helper()
	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	require.NoError(t, st.SetSqlQuery(sql))
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		return itest.Result{}, err
	}
	return readAll(t, rdr), nil
}

// queries are the walking skeleton's queries (the same as integration's and the Python ADBC
// tests'); ordered says whether the ORDER BY makes the row order total.
var queries = []struct {
	sql     string
	ordered bool
}{
	{"SELECT a, b FROM t WHERE a > 5 ORDER BY a LIMIT 10", true},
	{"SELECT count(*) FROM t", true},
	{"SELECT count(*) FROM t WHERE a > 500", true},
	{"SELECT b, a FROM t WHERE a BETWEEN 10 AND 20 ORDER BY a DESC", true},
	{"SELECT a, c FROM t WHERE c IS NULL AND a < 100", false},
	{"SELECT count(a), min(a), max(b), sum(a) FROM t", true},
	{"SELECT t1.a, t2.b FROM t t1 JOIN t t2 ON t1.a = t2.a + 1 WHERE t1.a < 8 ORDER BY t1.a", true},
	{"SELECT b, count(*) AS n, avg(c) FROM t GROUP BY b HAVING count(*) > 19 ORDER BY b", true},
	{"SELECT a, row_number() OVER (PARTITION BY b ORDER BY a) AS rn FROM t WHERE a < 60 ORDER BY a", true},
}

// sqls lists the queries' text, for itest.Oracles.
func sqls() []string {
	out := make([]string, len(queries))
	for i, q := range queries {
		out[i] = q.sql
	}
	return out
}

// itoa formats v in base 10.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// signal closes ch once (nil: nothing to signal).
func signal(ch chan struct{}) {
	if ch == nil {
		return
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// flightSlowRead runs sql through arrow-go's Flight SQL client and reads every batch slowly
// (one per millisecond) until the stream ends or ctx is done; first is closed when the first
// batch arrives.
func flightSlowRead(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string, first chan struct{}) error {
	t.Helper()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return err
	}
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return err
		}
		for rdr.Next() {
			signal(first)
			time.Sleep(time.Millisecond)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// adbcSlowRead runs sql through an ADBC statement and reads every batch slowly until the
// stream ends or ctx is done; first is closed when the first batch arrives.
func adbcSlowRead(ctx context.Context, t *testing.T, cn adbc.Connection, sql string, first chan struct{}) error {
	t.Helper()
	st, err := cn.NewStatement()
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	if err := st.SetSqlQuery(sql); err != nil {
		return err
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		return err
	}
	defer rdr.Release()
	for rdr.Next() {
		signal(first)
		time.Sleep(time.Millisecond)
	}
	if err := rdr.Err(); err != nil {
		return err
	}
	return ctx.Err()
}
