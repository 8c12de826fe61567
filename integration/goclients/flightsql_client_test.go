package goclients

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestFlightSQLExecuteSchemas checks, for each skeleton query, that GetSchema, FlightInfo's
// schema and every DoGet stream's schema agree, that total_records is -1 or the real count,
// and that the rows equal DuckDB's, with several endpoints per query.
func TestFlightSQLExecuteSchemas(t *testing.T) {
	root := tables(t)
	want := oracle(t, root, sqls()...)
	srv := itest.StartServer(t, root, flightsrv.Config{MaxEndpoints: 2})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()

	for _, q := range queries {
		t.Run(q.sql, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sr, err := cl.GetExecuteSchema(ctx, q.sql)
			require.NoError(t, err)
			fromGetSchema, err := flight.DeserializeSchema(sr.GetSchema(), mem)
			require.NoError(t, err)
			info, err := cl.Execute(ctx, q.sql)
			require.NoError(t, err)
			fromInfo, err := flight.DeserializeSchema(info.GetSchema(), mem)
			require.NoError(t, err)
			require.True(t, fromGetSchema.Equal(fromInfo), "GetSchema %s\nFlightInfo %s", fromGetSchema, fromInfo)

			var batches []arrow.RecordBatch
			for _, ep := range info.Endpoint {
				rdr, err := cl.DoGet(ctx, ep.Ticket)
				require.NoError(t, err)
				require.True(t, fromInfo.Equal(rdr.Schema()), "DoGet %s\nFlightInfo %s", rdr.Schema(), fromInfo)
				for rdr.Next() {
					b := rdr.RecordBatch()
					b.Retain()
					batches = append(batches, b)
				}
				require.NoError(t, rdr.Err())
				rdr.Release()
			}
			got := itest.ToResult(fromInfo, batches)
			for _, b := range batches {
				b.Release()
			}
			if info.TotalRecords != -1 {
				require.Equal(t, int64(len(got.Rows)), info.TotalRecords)
			}
			w := want[q.sql]
			if !q.ordered {
				got, w = got.Sorted(), w.Sorted()
			}
			require.Equal(t, w.String(), got.String())
		})
	}
}

// TestFlightSQLPreparedReuse prepares once and executes with several parameter batches, then
// prepares a statement without parameters; each result is checked against DuckDB.
func TestFlightSQLPreparedReuse(t *testing.T) {
	root := tables(t)
	lits := []string{
		"SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > 500 AND b <> 'x'",
		"SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > 100 AND b <> 's001'",
		"SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > 990 AND b <> 's000'",
		"SELECT b, count(*) AS n FROM t GROUP BY b ORDER BY b LIMIT 3",
	}
	want := oracle(t, root, lits...)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	stmt, err := cl.Prepare(ctx, "SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > ? AND b <> ?")
	require.NoError(t, err)
	require.Equal(t, 2, stmt.ParameterSchema().NumFields())
	require.Equal(t, []string{"n", "s"}, fieldNames(stmt.DatasetSchema()))
	for i, b := range []struct {
		a int64
		s string
	}{{500, "x"}, {100, "s001"}, {990, "s000"}} {
		rec := paramBatch(mem, stmt.ParameterSchema(), b.a, b.s)
		stmt.SetParameters(rec)
		rec.Release()
		info, err := stmt.Execute(ctx)
		require.NoError(t, err)
		require.Equal(t, want[lits[i]].Rows, fetchInfo(ctx, t, cl, info).Rows, lits[i])
	}
	require.NoError(t, stmt.Close(ctx))

	stmt, err = cl.Prepare(ctx, lits[3])
	require.NoError(t, err)
	require.Zero(t, stmt.ParameterSchema().NumFields())
	info, err := stmt.Execute(ctx)
	require.NoError(t, err)
	require.Equal(t, want[lits[3]].String(), fetchInfo(ctx, t, cl, info).String())
	require.NoError(t, stmt.Close(ctx))
}

// TestFlightSQLGetTablesWithSchema checks GetTables with include_schema: the reference schema,
// filters and patterns, and table_schema equal to the schema of SELECT * on the table.
func TestFlightSQLGetTablesWithSchema(t *testing.T) {
	root := tables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	info, err := cl.Execute(ctx, "SELECT * FROM t")
	require.NoError(t, err)
	selectStar, err := flight.DeserializeSchema(info.GetSchema(), mem)
	require.NoError(t, err)

	str := func(s string) *string { return &s }
	cases := []struct {
		name  string
		opts  *flightsql.GetTablesOpts
		names []string
	}{
		{"all", &flightsql.GetTablesOpts{IncludeSchema: true}, []string{"t"}},
		{"pattern matches", &flightsql.GetTablesOpts{IncludeSchema: true, TableNameFilterPattern: str("%")}, []string{"t"}},
		{"pattern misses", &flightsql.GetTablesOpts{IncludeSchema: true, TableNameFilterPattern: str("x%")}, nil},
		{"schema filter", &flightsql.GetTablesOpts{IncludeSchema: true, DbSchemaFilterPattern: str(flightsrv.SchemaName)}, []string{"t"}},
		{"other schema", &flightsql.GetTablesOpts{IncludeSchema: true, DbSchemaFilterPattern: str("other")}, nil},
		{"table type", &flightsql.GetTablesOpts{IncludeSchema: true, TableTypes: []string{"TABLE"}}, []string{"t"}},
		{"other type", &flightsql.GetTablesOpts{IncludeSchema: true, TableTypes: []string{"VIEW"}}, nil},
		{"catalog", &flightsql.GetTablesOpts{IncludeSchema: true, Catalog: str(flightsrv.CatalogName)}, []string{"t"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := cl.GetTables(ctx, c.opts)
			require.NoError(t, err)
			rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
			require.NoError(t, err)
			defer rdr.Release()
			require.True(t, schema_ref.TablesWithIncludedSchema.Equal(rdr.Schema()), "schema %s", rdr.Schema())
			var names []string
			for rdr.Next() {
				b := rdr.RecordBatch()
				for i := range int(b.NumRows()) {
					names = append(names, b.Column(2).ValueStr(i))
					require.Equal(t, flightsrv.CatalogName, b.Column(0).ValueStr(i))
					require.Equal(t, flightsrv.SchemaName, b.Column(1).ValueStr(i))
					require.Equal(t, "TABLE", b.Column(3).ValueStr(i))
					sc, err := flight.DeserializeSchema(b.Column(4).(*array.Binary).Value(i), mem)
					require.NoError(t, err)
					require.True(t, selectStar.Equal(sc), "table_schema %s\nSELECT * %s", sc, selectStar)
				}
			}
			require.NoError(t, rdr.Err())
			require.Equal(t, c.names, names)
		})
	}
}

// fieldNames lists sc's field names.
func fieldNames(sc *arrow.Schema) []string {
	var out []string
	for _, f := range sc.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// fetchInfo reads every endpoint of info and renders the rows.
func fetchInfo(ctx context.Context, t *testing.T, cl *flightsql.Client, info *flight.FlightInfo) itest.Result {
	t.Helper()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		require.NoError(t, err)
		sc = rdr.Schema()
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		require.NoError(t, rdr.Err())
		rdr.Release()
	}
	return itest.ToResult(sc, batches)
}
