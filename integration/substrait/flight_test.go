package substrait

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/planner"
)

// TestSubstraitOverFlight sends Substrait plans with CommandStatementSubstraitPlan
// (arrow-go's ExecuteSubstrait and GetExecuteSubstraitSchema) and checks the rows against
// the same SQL run as a statement and in DuckDB. The plans are flightd's own production of
// the SQL, re-consumed by the server like any client's.
func TestSubstraitOverFlight(t *testing.T) {
	root := itest.WriteTables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	pl := planner.New(lancecat.New(store))
	queries := []string{
		"SELECT a, b FROM t WHERE a > 900",
		"SELECT b, count(*) AS n, sum(a) AS s FROM t WHERE c < 200 GROUP BY b",
		"SELECT a FROM t WHERE a > (SELECT avg(a) FROM t) ORDER BY a LIMIT 5",
	}
	for _, sql := range queries {
		t.Run(sql, func(t *testing.T) {
			p, err := pl.PlanSQL(ctx, sql)
			require.NoError(t, err)
			sp := flightsql.SubstraitPlan{Plan: p.Substrait, Version: "0.85.0"}
			got, err := executeSubstrait(ctx, t, cl, sp.Plan)
			require.NoError(t, err)
			viaSQL, err := itest.Query(ctx, t, cl, sql)
			require.NoError(t, err)
			require.Equal(t, viaSQL.Sorted().String(), got.Sorted().String())
			require.Equal(t, itest.Oracle(t, root, sql).Sorted().String(), got.Sorted().String())
			require.NotEmpty(t, got.Rows)

			res, err := cl.GetExecuteSubstraitSchema(ctx, sp)
			require.NoError(t, err)
			sc, err := flight.DeserializeSchema(res.GetSchema(), memory.DefaultAllocator)
			require.NoError(t, err)
			require.Equal(t, got.Names, fieldNames(sc))
			require.True(t, sc.Equal(p.Schema), "schema %s, want %s", sc, p.Schema)
		})
	}
}

func fieldNames(sc *arrow.Schema) []string {
	var out []string
	for _, f := range sc.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// TestSubstraitErrorsOverFlight: a malformed plan is INVALID_ARGUMENT, a plan over a table
// the server does not have NOT_FOUND.
func TestSubstraitErrorsOverFlight(t *testing.T) {
	srv := itest.StartServer(t, t.TempDir(), flightsrv.Config{}) // no tables
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(itest.WriteTables(t)))
	require.NoError(t, err)
	p, err := planner.New(lancecat.New(store)).PlanSQL(ctx, "SELECT a FROM t")
	require.NoError(t, err)
	cases := []struct {
		name string
		plan []byte
		code codes.Code
		msg  string
	}{
		{"garbage", []byte{0xff, 0xff, 0xff}, codes.InvalidArgument, "invalid Substrait plan"},
		{"empty", nil, codes.InvalidArgument, "invalid Substrait plan: empty"},
		{"unknown table", p.Substrait, codes.NotFound, "Table with name t does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cl.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: c.plan})
			require.Error(t, err)
			st, ok := status.FromError(err)
			require.True(t, ok, "not a gRPC status: %v", err)
			require.Equal(t, c.code, st.Code(), st.Message())
			require.Contains(t, st.Message(), c.msg)
		})
	}
}

// TestSqlInfoSubstrait: SqlInfo 5 says Substrait plans are accepted, 6 and 7 give the
// versions.
func TestSqlInfoSubstrait(t *testing.T) {
	srv := itest.StartServer(t, t.TempDir(), flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	info, err := cl.GetSqlInfo(ctx, []flightsql.SqlInfo{
		flightsql.SqlInfoFlightSqlServerSubstrait,
		flightsql.SqlInfoFlightSqlServerSubstraitMinVersion,
		flightsql.SqlInfoFlightSqlServerSubstraitMaxVersion,
	})
	require.NoError(t, err)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	require.NoError(t, err)
	defer rdr.Release()
	got := map[uint32]string{}
	for rdr.Next() {
		b := rdr.RecordBatch()
		ids := b.Column(0).(*array.Uint32)
		vals := b.Column(1).(*array.DenseUnion)
		for i := 0; i < ids.Len(); i++ {
			child := vals.Field(int(vals.ChildID(i)))
			got[ids.Value(i)] = child.ValueStr(int(vals.ValueOffset(i)))
		}
	}
	require.NoError(t, rdr.Err())
	require.Equal(t, map[uint32]string{5: "true", 6: "0.20.0", 7: "0.85.0"}, got)
}
