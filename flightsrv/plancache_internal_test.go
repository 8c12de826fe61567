package flightsrv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/catalog/memcat"
	"github.com/flightd/flightd/internal/blobstore"
)

// startLanceServer serves a lancecat catalog over a new folder, which it returns.
func startLanceServer(t *testing.T, mem memory.Allocator) (*testServer, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := blobstore.NewFileStore(dir)
	require.NoError(t, err)
	srv, err := New(Config{Catalog: lancecat.New(store), Mem: mem, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Drain(fs, 5*time.Second) })
	return &testServer{srv: srv, fs: fs, addr: addr.String()}, dir
}

// int64s runs sql and returns its first column, which must be int64, in result order.
func int64s(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string, opts ...grpc.CallOption) []int64 {
	t.Helper()
	info, err := cl.Execute(ctx, sql, opts...)
	require.NoError(t, err, sql)
	var out []int64
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket, opts...)
		require.NoError(t, err, sql)
		for rdr.Next() {
			col := rdr.RecordBatch().Column(0).(*array.Int64)
			out = append(out, col.Int64Values()...)
		}
		require.NoError(t, rdr.Err(), sql)
		rdr.Release()
	}
	return out
}

// cacheCounts is the plan cache's hits, misses and stale lookups.
func cacheCounts(s *Server) [3]int64 {
	return [3]int64{s.plans.hits.Load(), s.plans.misses.Load(), s.plans.stale.Load()}
}

func execSQL(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string) {
	t.Helper()
	_, err := cl.ExecuteUpdate(ctx, sql)
	require.NoError(t, err, sql)
}

// TestPlanCacheInvalidation checks that a cached plan is reused only while every table it
// reads resolves to the same snapshot: a commit, a dropped and recreated table (same
// version number), time travel in the SQL, a header and a session-less client each get
// the results of a fresh plan.
func TestPlanCacheInvalidation(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts, dir := startLanceServer(t, mem)
	cl := ts.dial(t)
	ctx := context.Background()
	const q = "SELECT x FROM t ORDER BY x"

	execSQL(ctx, t, cl, "CREATE TABLE t (x BIGINT)")
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (1), (2)") // version 2
	require.Equal(t, []int64{1, 2}, int64s(ctx, t, cl, q))
	require.Equal(t, [3]int64{0, 1, 0}, cacheCounts(ts.srv))
	require.Equal(t, []int64{1, 2}, int64s(ctx, t, cl, q))
	require.Equal(t, [3]int64{1, 1, 0}, cacheCounts(ts.srv), "the second run reuses the plan")

	execSQL(ctx, t, cl, "INSERT INTO t VALUES (3)") // version 3
	require.Equal(t, []int64{1, 2, 3}, int64s(ctx, t, cl, q), "a commit plans again")
	require.Equal(t, [3]int64{1, 1, 1}, cacheCounts(ts.srv))
	require.Equal(t, []int64{1, 2, 3}, int64s(ctx, t, cl, q))
	require.Equal(t, [3]int64{2, 1, 1}, cacheCounts(ts.srv))

	// Time travel in the SQL: its own entry, valid across commits (version 2 never changes).
	const old = "SELECT x FROM t AT (VERSION => 2) ORDER BY x"
	for range 2 {
		require.Equal(t, []int64{1, 2}, int64s(ctx, t, cl, old))
	}
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (4)") // version 4
	require.Equal(t, []int64{1, 2}, int64s(ctx, t, cl, old))
	require.Equal(t, [3]int64{4, 2, 1}, cacheCounts(ts.srv))

	// A time-travel header: another key, so neither entry answers for the other.
	vctx := metadata.AppendToOutgoingContext(ctx, HeaderVersionPrefix+"t", "3")
	require.Equal(t, []int64{1, 2, 3}, int64s(vctx, t, cl, q))
	require.Equal(t, []int64{1, 2, 3, 4}, int64s(ctx, t, cl, q))
	require.Equal(t, []int64{1, 2, 3}, int64s(vctx, t, cl, q))
	require.Equal(t, []int64{1, 2, 3, 4}, int64s(ctx, t, cl, q))

	// Dropped and created again up to the same version number (4), with other rows: the
	// version matches but the snapshot does not.
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "t.lance")))
	execSQL(ctx, t, cl, "CREATE TABLE t (x BIGINT)")
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (10)")
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (20)")
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (30)")
	require.Equal(t, []int64{10, 20, 30}, int64s(ctx, t, cl, q))
	require.Equal(t, []int64{10, 20}, int64s(ctx, t, cl, "SELECT x FROM t AT (VERSION => 3) ORDER BY x"))
}

// TestPlanCacheSessionOption checks that a session's time-travel option is part of the key.
func TestPlanCacheSessionOption(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts, _ := startLanceServer(t, mem)
	ctx := context.Background()
	plain := ts.dial(t)
	execSQL(ctx, t, plain, "CREATE TABLE t (x BIGINT)")
	execSQL(ctx, t, plain, "INSERT INTO t VALUES (1)") // version 2
	execSQL(ctx, t, plain, "INSERT INTO t VALUES (2)") // version 3
	const q = "SELECT x FROM t ORDER BY x"
	require.Equal(t, []int64{1, 2}, int64s(ctx, t, plain, q))

	cl := ts.dial(t)
	vals, err := flight.NewSessionOptionValues(map[string]any{OptionVersionPrefix + "t": int64(2)})
	require.NoError(t, err)
	var hdr, trl metadata.MD
	res, err := cl.SetSessionOptions(ctx, &flight.SetSessionOptionsRequest{SessionOptions: vals}, grpc.Header(&hdr), grpc.Trailer(&trl))
	require.NoError(t, err)
	require.Empty(t, res.GetErrors())
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: http.Header{"Set-Cookie": append(hdr.Get("set-cookie"), trl.Get("set-cookie")...)}}).Cookies() {
		cookie = c // a later one wins
	}
	require.NotNil(t, cookie)
	sctx := metadata.AppendToOutgoingContext(ctx, "cookie", cookie.Name+"="+cookie.Value)
	for range 2 {
		require.Equal(t, []int64{1}, int64s(sctx, t, cl, q), "the session reads version 2")
		require.Equal(t, []int64{1, 2}, int64s(ctx, t, plain, q))
	}
	require.Equal(t, [3]int64{3, 2, 0}, cacheCounts(ts.srv))
}

// TestPlanCacheNotUsed checks what is never cached: statements other than queries, and
// queries whose planning failed a lookup (a case-insensitive table match).
func TestPlanCacheNotUsed(t *testing.T) {
	ts := startTestServer(t, 10, Config{})
	cl := ts.dial(t)
	ctx := context.Background()
	for range 2 {
		n, err := count(ctx, t, cl, "SELECT x FROM T")
		require.NoError(t, err)
		require.Equal(t, int64(10), n)
		_, err = count(ctx, t, cl, "EXPLAIN SELECT x FROM t")
		require.NoError(t, err)
	}
	require.Equal(t, [3]int64{0, 2, 0}, cacheCounts(ts.srv))
	require.Zero(t, ts.srv.plans.lru.Len())
}

// TestPlanCacheSharedPlan runs one cached plan from many clients at once (under -race, the
// shared optimized plan must be only read) and checks every result.
func TestPlanCacheSharedPlan(t *testing.T) {
	ts := startTestServer(t, 1000, Config{})
	ctx := context.Background()
	const q = "SELECT sum(x), count(*) FROM t WHERE x % 3 = 1"
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i := range 8 {
		cl := ts.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				info, err := cl.Execute(ctx, q)
				if err != nil {
					errs <- err
					return
				}
				rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
				if err != nil {
					errs <- err
					return
				}
				for rdr.Next() {
					b := rdr.RecordBatch()
					sum, n := b.Column(0).(*array.Int64).Value(0), b.Column(1).(*array.Int64).Value(0)
					if sum != 166167 || n != 333 {
						errs <- fmt.Errorf("client %d: sum %d count %d", i, sum, n)
					}
				}
				rdr.Release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	c := cacheCounts(ts.srv)
	require.Equal(t, int64(80), c[0]+c[1])
	require.GreaterOrEqual(t, c[0], int64(72), "at most one miss per client")
}

// TestPlanCacheReplacedMemTable checks the fallback identity (no SameSnapshot): a memcat
// table replaced under the same name and version is another Table object.
func TestPlanCacheReplacedMemTable(t *testing.T) {
	ts := startTestServer(t, 10, Config{})
	cl := ts.dial(t)
	ctx := context.Background()
	require.Equal(t, []int64{45}, int64s(ctx, t, cl, "SELECT sum(x) FROM t"))
	require.Equal(t, []int64{45}, int64s(ctx, t, cl, "SELECT sum(x) FROM t"))
	require.Equal(t, [3]int64{1, 1, 0}, cacheCounts(ts.srv))
	addIntTable(t, ts.srv.cat.(*memcat.Catalog), ts.mem, 20)
	require.Equal(t, []int64{190}, int64s(ctx, t, cl, "SELECT sum(x) FROM t"))
	require.Equal(t, [3]int64{1, 1, 1}, cacheCounts(ts.srv))
}

func TestIsQueryText(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT 1", true},
		{"  select\n1", true},
		{"-- c\n/* d */ WITH a AS (SELECT 1) SELECT * FROM a", true},
		{"(SELECT 1)", true},
		{"VALUES (1)", true},
		{"SELECTED", false},
		{"select_x", false},
		{"EXPLAIN SELECT 1", false},
		{"INSERT INTO t SELECT 1", false},
		{"CREATE TABLE t AS SELECT 1", false},
		{"/* unterminated SELECT", false},
		{"-- SELECT", false},
		{"", false},
	} {
		require.Equal(t, tc.want, isQueryText(tc.sql), tc.sql)
	}
}

// TestPlanCacheKeyCannotBeSpelled: no query text, however it ends, shares a cache key with
// another text planned under time-travel settings, and over-long texts are not cached.
func TestPlanCacheKeyCannotBeSpelled(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts, _ := startLanceServer(t, mem)
	cl := ts.dial(t)
	ctx := context.Background()
	execSQL(ctx, t, cl, "CREATE TABLE t (x BIGINT)")
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (1)") // version 2
	execSQL(ctx, t, cl, "INSERT INTO t VALUES (2)") // version 3
	const q = "SELECT x FROM t ORDER BY x -- c"
	vctx := metadata.AppendToOutgoingContext(ctx, HeaderVersionPrefix+"t", "2")
	require.Equal(t, []int64{1}, int64s(vctx, t, cl, q))
	// The same query followed, inside its comment, by what a key without a length prefix
	// appended for version 2 of t: it must still read the latest version.
	spelled := q + "\x00as_of=\x00\"t\"=2,\"\""
	require.Equal(t, []int64{1, 2}, int64s(ctx, t, cl, spelled))

	_, ok := planCacheKey(ctx, "SELECT 1 -- "+strings.Repeat("x", planCacheMaxText))
	require.False(t, ok, "a text over planCacheMaxText is planned every time")
}
