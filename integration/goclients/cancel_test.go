package goclients

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// Long queries over the 1000-row table t: a billion-row cross join aggregated on the server
// (the client waits for the first batch while the server works) and the same cross join
// streamed (the client reads slowly until it gives up).
const (
	slowAggregate = "SELECT count(*), sum(t1.a + t2.a + t3.a) FROM t t1 CROSS JOIN t t2 CROSS JOIN t t3"
	slowStream    = "SELECT t1.a, t2.b, t3.c FROM t t1 CROSS JOIN t t2 CROSS JOIN t t3"
)

// cancelled reports whether err is what a client returns for a cancelled or timed-out call: a
// context error, a gRPC Canceled/DeadlineExceeded status, or an ADBC Cancelled/Timeout status.
func cancelled(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ae adbc.Error
	if errors.As(err, &ae) {
		return ae.Code == adbc.StatusCancelled || ae.Code == adbc.StatusTimeout
	}
	switch status.Code(err) {
	case codes.Canceled, codes.DeadlineExceeded:
		return true
	}
	return false
}

// clientRun runs sql on one kind of client under ctx, reading the whole result slowly; first
// (when not nil) is closed when the first batch or row arrives.
type clientRun func(ctx context.Context, t *testing.T, sql string, first chan struct{}) error

// cancelMode is how a long query gets cancelled.
type cancelMode struct {
	name string
	sql  string
	// afterFirst: cancel once the first batch has arrived; otherwise a 300 ms deadline
	// expires while the server is still computing.
	afterFirst bool
}

var cancelModes = []cancelMode{
	{"deadline while computing", slowAggregate, false},
	{"cancel after first batch", slowStream, true},
}

// namedClient is one kind of Go client.
type namedClient struct {
	name string
	run  clientRun
}

// TestCancellationEveryClient cancels a long query on each Go client, by deadline while the
// server computes and by cancel after the first batch has arrived: the call must return within
// 2 s with a cancellation error, and afterwards the server must have no goroutine and no Arrow
// memory left from the query and must answer the next query.
func TestCancellationEveryClient(t *testing.T) {
	root := tables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fl := itest.Dial(t, srv.Addr)
	cn := openADBC(t, srv.Addr, mem)
	db := openSQL(t, srv.Addr)
	db.SetMaxOpenConns(1) // one ADBC connection, opened by the warm-up below

	clients := []namedClient{
		{"arrow-go flightsql", func(ctx context.Context, t *testing.T, sql string, first chan struct{}) error {
			return flightSlowRead(ctx, t, fl, sql, first)
		}},
		{"adbc", func(ctx context.Context, t *testing.T, sql string, first chan struct{}) error {
			return adbcSlowRead(ctx, t, cn, sql, first)
		}},
		{"database/sql", func(ctx context.Context, t *testing.T, sql string, first chan struct{}) error {
			return sqlSlowRead(ctx, db, sql, first)
		}},
	}
	for _, c := range clients {
		// Warm up: the client's connection and its long-lived goroutines exist before the
		// goroutine snapshot.
		require.NoError(t, c.run(context.Background(), t, "SELECT count(*) FROM t", nil), c.name)
	}
	baseline := goleak.IgnoreCurrent()

	for _, c := range clients {
		for _, mode := range cancelModes {
			t.Run(c.name+"/"+mode.name, func(t *testing.T) {
				elapsed, err := cancelOnce(t, c, mode)
				require.Error(t, err)
				require.True(t, cancelled(err), "not a cancellation error: %T %v", err, err)
				require.Less(t, elapsed, 2*time.Second+300*time.Millisecond, "returned %s after the start or cancel", elapsed)

				// The server lets go of the query: no goroutine left (goleak retries for a
				// while), no Arrow memory held, and the next query is served.
				goleak.VerifyNone(t, baseline)
				require.Eventually(t, func() bool { return srv.Mem.CurrentAlloc() == 0 },
					5*time.Second, 20*time.Millisecond, "server Arrow memory after cancel: %d", srv.Mem.CurrentAlloc())
				got, err := itest.Query(context.Background(), t, fl, "SELECT count(*) FROM t")
				require.NoError(t, err)
				require.Equal(t, [][]string{{"1000"}}, got.Rows)
				require.NoError(t, c.run(context.Background(), t, "SELECT count(*) FROM t", nil), "the same client works again")
			})
		}
	}
}

// cancelOnce runs mode's query on c and cancels it as mode says; it returns the call's error
// and how long the call took after its start (deadline) or after the cancel.
func cancelOnce(t *testing.T, c namedClient, mode cancelMode) (time.Duration, error) {
	t.Helper()
	var ctx context.Context
	var cancel context.CancelFunc
	if mode.afterFirst {
		ctx, cancel = context.WithCancel(context.Background())
	} else {
		ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	}
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	first := make(chan struct{})
	go func() { done <- c.run(ctx, t, mode.sql, first) }()
	if mode.afterFirst {
		select {
		case <-first:
		case err := <-done:
			require.FailNow(t, "the stream ended before its first batch", "%v", err)
		}
		start = time.Now()
		cancel()
	}
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(10 * time.Second):
		cancel()
		require.FailNow(t, "the call did not return 10 s after its cancellation")
		return 0, nil
	}
}

// sqlSlowRead runs sql through database/sql and reads its rows slowly (the server fills the
// flow-control window meanwhile); first is closed when the first row arrives.
func sqlSlowRead(ctx context.Context, db *sql.DB, sql string, first chan struct{}) error {
	rows, err := db.QueryContext(ctx, sql)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for n := 0; rows.Next(); n++ {
		signal(first)
		if n%1000 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return ctx.Err()
}
