package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// server is an in-process flightd on 127.0.0.1:0 whose every Arrow allocation is checked.
type server struct {
	addr string
	mem  *memory.CheckedAllocator
	stop func()
}

func startServer(t *testing.T, root string) *server {
	t.Helper()
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, err := flightsrv.New(flightsrv.Config{Catalog: lancecat.New(store), Mem: mem})
	require.NoError(t, err)
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	return &server{addr: addr.String(), mem: mem, stop: fs.Shutdown}
}

// query runs sql through arrow-go's Flight SQL client: Execute, then DoGet on every endpoint.
func query(ctx context.Context, t *testing.T, cl *flightsql.Client, sql string) (result, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return result{}, err
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return result{}, err
		}
		sc = rdr.Schema()
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return result{}, err
		}
	}
	return toResult(sc, batches), nil
}

// skeletonQueries are the walking skeleton's queries; ordered says whether the ORDER BY makes
// the row order total.
var skeletonQueries = []struct {
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

func TestFlightSQLClientMatchesDuckDB(t *testing.T) {
	root := writeTables(t)
	srv := startServer(t, root)
	defer srv.mem.AssertSize(t, 0)
	defer srv.stop()

	ctx := context.Background()
	cl, err := flightsql.NewClient(srv.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	for _, q := range skeletonQueries {
		t.Run(q.sql, func(t *testing.T) {
			got, err := query(ctx, t, cl, q.sql)
			require.NoError(t, err)
			want := oracle(t, root, q.sql)
			if !q.ordered {
				got, want = got.sorted(), want.sorted()
			}
			require.Equal(t, want.String(), got.String())
		})
	}
}

func TestFlightSQLErrors(t *testing.T) {
	root := writeTables(t)
	srv := startServer(t, root)
	defer srv.mem.AssertSize(t, 0)
	defer srv.stop()

	ctx := context.Background()
	cl, err := flightsql.NewClient(srv.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	cases := []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{"SELECT * FROM no_such_table", codes.NotFound, "no_such_table"},
		{"INSERT INTO t VALUES (1, 'x', 2.0)", codes.Unimplemented, "not supported"},
		{"SELECT a FROM t t1 JOIN t t2 ON t1.a = t2.a", codes.InvalidArgument, "Ambiguous reference"},
		{"SELEC a FROM t", codes.InvalidArgument, "Parser"},
		{"SELECT no_such_column FROM t", codes.InvalidArgument, "no_such_column"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			_, err := query(ctx, t, cl, c.sql)
			require.Error(t, err)
			st, ok := status.FromError(err)
			require.True(t, ok, "not a gRPC status: %v", err)
			require.Equal(t, c.code, st.Code(), st.Message())
			require.Contains(t, st.Message(), c.msg)
		})
	}
}

func TestListTables(t *testing.T) {
	root := writeTables(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "not_a_table"), 0o755))
	srv := startServer(t, root)
	defer srv.mem.AssertSize(t, 0)
	defer srv.stop()

	ctx := context.Background()
	cl, err := flightsql.NewClient(srv.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cl.Close()

	info, err := cl.GetTables(ctx, &flightsql.GetTablesOpts{IncludeSchema: true})
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	var names []string
	for rdr.Next() {
		b := rdr.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			names = append(names, fmt.Sprint(b.Column(2).ValueStr(i)))
		}
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, []string{"t"}, names)
}
