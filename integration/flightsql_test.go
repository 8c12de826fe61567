package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
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
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})

	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	for _, q := range skeletonQueries {
		t.Run(q.sql, func(t *testing.T) {
			got, err := itest.Query(ctx, t, cl, q.sql)
			require.NoError(t, err)
			want := itest.Oracle(t, root, q.sql)
			if !q.ordered {
				got, want = got.Sorted(), want.Sorted()
			}
			require.Equal(t, want.String(), got.String())
		})
	}
}

func TestFlightSQLErrors(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})

	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	cases := []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{"SELECT * FROM no_such_table", codes.NotFound, "no_such_table"},
		{"DROP TABLE t", codes.Unimplemented, "not supported"},
		{"SELECT a FROM t t1 JOIN t t2 ON t1.a = t2.a", codes.InvalidArgument, "Ambiguous reference"},
		{"SELEC a FROM t", codes.InvalidArgument, "Parser"},
		{"SELECT no_such_column FROM t", codes.InvalidArgument, "no_such_column"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			_, err := itest.Query(ctx, t, cl, c.sql)
			require.Error(t, err)
			st, ok := status.FromError(err)
			require.True(t, ok, "not a gRPC status: %v", err)
			require.Equal(t, c.code, st.Code(), st.Message())
			require.Contains(t, st.Message(), c.msg)
		})
	}
}

func TestListTables(t *testing.T) {
	root := itest.WriteTables(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "not_a_table"), 0o755))
	srv := itest.StartServer(t, root, flightsrv.Config{})

	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	info, err := cl.GetTables(ctx, &flightsql.GetTablesOpts{IncludeSchema: true})
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	var names []string
	for rdr.Next() {
		b := rdr.RecordBatch()
		for i := range int(b.NumRows()) {
			names = append(names, b.Column(2).ValueStr(i))
		}
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, []string{"t"}, names)
}
