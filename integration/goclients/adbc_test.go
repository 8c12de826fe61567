package goclients

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestADBCQueriesMatchDuckDB runs the skeleton queries through the ADBC Go driver's
// statements (GetFlightInfo, then DoGet of every endpoint in the driver) and compares with
// DuckDB over the same rows.
//
// The server gives one endpoint per query here: with several endpoints, the ADBC Go driver
// v1.12.0 fetches them in parallel with the same grpc.Header/grpc.Trailer call options
// (record_reader.go), a data race inside the driver that `go test -race` reports.
func TestADBCQueriesMatchDuckDB(t *testing.T) {
	root := tables(t)
	want := oracle(t, root, sqls()...)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)

	for _, q := range queries {
		t.Run(q.sql, func(t *testing.T) {
			got, err := adbcQuery(context.Background(), t, cn, q.sql)
			require.NoError(t, err)
			w := want[q.sql]
			if !q.ordered {
				got, w = got.Sorted(), w.Sorted()
			}
			require.Equal(t, w.String(), got.String())
		})
	}
}

// TestADBCErrors checks the ADBC status codes the driver derives from flightd's gRPC codes,
// and that the connection keeps working after an error. (No statement here may write: the
// tables are shared by the package's tests.)
func TestADBCErrors(t *testing.T) {
	root := tables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)

	cases := []struct {
		sql  string
		code adbc.Status
		msg  string
	}{
		{"SELECT a FROM no_such_table", adbc.StatusNotFound, "no_such_table"},
		{"SELEC a FROM t", adbc.StatusInvalidArgument, "Parser"},
		{"SELECT no_such_column FROM t", adbc.StatusInvalidArgument, "no_such_column"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			_, err := adbcQuery(context.Background(), t, cn, c.sql)
			var ae adbc.Error
			require.ErrorAs(t, err, &ae)
			require.Equal(t, c.code, ae.Code, ae.Msg)
			require.Contains(t, ae.Msg, c.msg)
		})
	}
	got, err := adbcQuery(context.Background(), t, cn, "SELECT count(*) AS n FROM t")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"1000"}}, got.Rows)
}

// infoStrings reads GetInfo's result into id → value for the string-typed values.
func infoStrings(t *testing.T, rdr array.RecordReader) map[adbc.InfoCode]string {
	t.Helper()
	defer rdr.Release()
	require.True(t, adbc.GetInfoSchema.Equal(rdr.Schema()), "GetInfo schema %s", rdr.Schema())
	out := map[adbc.InfoCode]string{}
	for rdr.Next() {
		b := rdr.RecordBatch()
		codes := b.Column(0).(*array.Uint32)
		vals := b.Column(1).(*array.DenseUnion)
		for i := range codes.Len() {
			if vals.TypeCode(i) != adbc.InfoValueStringType {
				continue
			}
			child := vals.Field(vals.ChildID(i)).(*array.String)
			out[adbc.InfoCode(codes.Value(i))] = child.Value(int(vals.ValueOffset(i)))
		}
	}
	require.NoError(t, rdr.Err())
	return out
}

func TestADBCGetInfo(t *testing.T) {
	srv := itest.StartServer(t, t.TempDir(), flightsrv.Config{Version: "9.9.9-test"})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)

	rdr, err := cn.GetInfo(context.Background(), nil)
	require.NoError(t, err)
	info := infoStrings(t, rdr)
	require.Equal(t, "flightd", info[adbc.InfoVendorName])
	require.Equal(t, "9.9.9-test", info[adbc.InfoVendorVersion])
	require.Equal(t, "18.8.0", info[adbc.InfoVendorArrowVersion])
	require.Equal(t, "ADBC Flight SQL Driver - Go", info[adbc.InfoDriverName])

	rdr, err = cn.GetInfo(context.Background(), []adbc.InfoCode{adbc.InfoVendorName})
	require.NoError(t, err)
	require.Equal(t, map[adbc.InfoCode]string{adbc.InfoVendorName: "flightd"}, infoStrings(t, rdr))
}

// objects decodes GetObjects' nested result to JSON-shaped values.
func objects(t *testing.T, rdr array.RecordReader) []map[string]any {
	t.Helper()
	defer rdr.Release()
	require.True(t, adbc.GetObjectsSchema.Equal(rdr.Schema()), "GetObjects schema %s", rdr.Schema())
	var out []map[string]any
	for rdr.Next() {
		var buf bytes.Buffer
		require.NoError(t, array.RecordToJSON(rdr.RecordBatch(), &buf))
		dec := json.NewDecoder(&buf)
		for dec.More() {
			var m map[string]any
			require.NoError(t, dec.Decode(&m))
			out = append(out, m)
		}
	}
	require.NoError(t, rdr.Err())
	return out
}

// names collects key from each element of the JSON list l.
func names(l any, key string) []string {
	var out []string
	items, _ := l.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		s, _ := m[key].(string)
		out = append(out, s)
	}
	return out
}

// child returns the element of the JSON list l whose key equals name.
func child(t *testing.T, l any, key, name string) map[string]any {
	t.Helper()
	items, _ := l.([]any)
	for _, it := range items {
		if m, _ := it.(map[string]any); m[key] == name {
			return m
		}
	}
	require.Failf(t, "missing", "no %s=%q in %v", key, name, l)
	return nil
}

func TestADBCGetObjectsEveryDepth(t *testing.T) {
	root := tables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()

	depths := []struct {
		name  string
		depth adbc.ObjectDepth
	}{
		{"catalogs", adbc.ObjectDepthCatalogs},
		{"db_schemas", adbc.ObjectDepthDBSchemas},
		{"tables", adbc.ObjectDepthTables},
		{"all", adbc.ObjectDepthAll},
	}
	for _, d := range depths {
		t.Run(d.name, func(t *testing.T) {
			rdr, err := cn.GetObjects(ctx, d.depth, nil, nil, nil, nil, nil)
			require.NoError(t, err)
			objs := objects(t, rdr)
			require.Len(t, objs, 1)
			require.Equal(t, flightsrv.CatalogName, objs[0]["catalog_name"])
			if d.depth == adbc.ObjectDepthCatalogs {
				require.Nil(t, objs[0]["catalog_db_schemas"], "no schemas at catalog depth")
				return
			}
			schemas := objs[0]["catalog_db_schemas"]
			require.Equal(t, []string{flightsrv.SchemaName}, names(schemas, "db_schema_name"))
			tables := child(t, schemas, "db_schema_name", flightsrv.SchemaName)["db_schema_tables"]
			if d.depth == adbc.ObjectDepthDBSchemas {
				require.Nil(t, tables, "no tables at schema depth")
				return
			}
			require.Equal(t, []string{"t"}, names(tables, "table_name"))
			tbl := child(t, tables, "table_name", "t")
			require.Equal(t, "TABLE", tbl["table_type"])
			if d.depth == adbc.ObjectDepthTables {
				require.Nil(t, tbl["table_columns"], "no columns at table depth")
				return
			}
			cols, _ := tbl["table_columns"].([]any)
			require.Equal(t, []string{"a", "b", "c"}, names(cols, "column_name"))
			for i, c := range cols {
				require.EqualValues(t, i+1, c.(map[string]any)["ordinal_position"])
			}
		})
	}
}

// TestADBCGetObjectsPatterns filters GetObjects by table name pattern.
func TestADBCGetObjectsPatterns(t *testing.T) {
	srv := itest.StartServer(t, tables(t), flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()
	for _, c := range []struct {
		pattern string
		want    []string
	}{{"x%", nil}, {"_", []string{"t"}}, {"t", []string{"t"}}} {
		rdr, err := cn.GetObjects(ctx, adbc.ObjectDepthTables, nil, nil, &c.pattern, nil, nil)
		require.NoError(t, err)
		objs := objects(t, rdr)
		require.Len(t, objs, 1)
		tables := child(t, objs[0]["catalog_db_schemas"], "db_schema_name", flightsrv.SchemaName)["db_schema_tables"]
		require.Equal(t, c.want, names(tables, "table_name"), "pattern %q", c.pattern)
	}
}

func TestADBCGetTableSchemaAndTypes(t *testing.T) {
	root := tables(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()

	sc, err := cn.GetTableSchema(ctx, nil, nil, "t")
	require.NoError(t, err)
	want := []arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}
	require.Len(t, sc.Fields(), len(want))
	for i, f := range want {
		got := sc.Field(i)
		require.Equal(t, f.Name, got.Name)
		require.True(t, arrow.TypeEqual(f.Type, got.Type), "%s: %s", f.Name, got.Type)
		require.Equal(t, f.Nullable, got.Nullable, f.Name)
	}

	_, err = cn.GetTableSchema(ctx, nil, nil, "no_such_table")
	var ae adbc.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, adbc.StatusNotFound, ae.Code, ae.Msg)

	rdr, err := cn.GetTableTypes(ctx)
	require.NoError(t, err)
	got := readAll(t, rdr)
	require.Equal(t, []string{"table_type"}, got.Names)
	require.Contains(t, got.Rows, []string{"TABLE"})
}

// TestADBCBindParameters prepares a statement with placeholders, binds one row of values at a
// time and compares each result with DuckDB's for the literal query.
func TestADBCBindParameters(t *testing.T) {
	root := tables(t)
	literal := func(a int64, b string) string {
		return "SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > " + itoa(a) + " AND b <> '" + b + "'"
	}
	binds := []struct {
		a int64
		b string
	}{{500, "x"}, {100, "s001"}, {990, "s000"}}
	var lits []string
	for _, b := range binds {
		lits = append(lits, literal(b.a, b.b))
	}
	want := oracle(t, root, lits...)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()

	st, err := cn.NewStatement()
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	require.NoError(t, st.SetSqlQuery("SELECT count(*) AS n, sum(a) AS s FROM t WHERE a > ? AND b <> ?"))
	require.NoError(t, st.Prepare(ctx))
	ps, err := st.GetParameterSchema()
	require.NoError(t, err)
	require.Equal(t, 2, ps.NumFields())

	for i, b := range binds {
		rec := paramBatch(mem, ps, b.a, b.b)
		require.NoError(t, st.Bind(ctx, rec))
		rec.Release()
		rdr, _, err := st.ExecuteQuery(ctx)
		require.NoError(t, err)
		got := readAll(t, rdr)
		require.Equal(t, want[lits[i]].Rows, got.Rows, lits[i])
	}
}

// paramBatch builds a one-row batch of (int64, utf8) parameters with the names of ps.
func paramBatch(mem memory.Allocator, ps *arrow.Schema, a int64, b string) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: ps.Field(0).Name, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: ps.Field(1).Name, Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(mem, sc)
	defer bld.Release()
	bld.Field(0).(*array.Int64Builder).Append(a)
	bld.Field(1).(*array.StringBuilder).Append(b)
	return bld.NewRecordBatch()
}

// TestADBCIngestCreateAppend ingests through the driver's bulk ingest (CommandStatementIngest)
// in create then append mode and reads the table back with pylance and through the driver.
func TestADBCIngestCreateAppend(t *testing.T) {
	root := t.TempDir()
	srv := itest.StartServer(t, root, flightsrv.Config{})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cn := openADBC(t, srv.Addr, mem)
	ctx := context.Background()

	ingest := func(mode string, from, n int) (int64, error) {
		st, err := cn.NewStatement()
		require.NoError(t, err)
		defer func() { require.NoError(t, st.Close()) }()
		require.NoError(t, st.SetOption(adbc.OptionKeyIngestTargetTable, "people"))
		require.NoError(t, st.SetOption(adbc.OptionKeyIngestMode, mode))
		// BindStream, not Bind: for ingest, the driver (v1.12.0) wraps a Bind-bound batch in a
		// record reader it never releases, which leaks the batch.
		rec := peopleBatch(mem, from, n)
		defer rec.Release()
		rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		require.NoError(t, err)
		defer rdr.Release()
		require.NoError(t, st.BindStream(ctx, rdr))
		return st.ExecuteUpdate(ctx)
	}
	pylance := func() string {
		out := itest.RunScript(t, "lance_summary.py", filepath.Join(root, "people.lance"))
		return strings.TrimSpace(string(out))
	}

	n, err := ingest(adbc.OptionValueIngestModeCreate, 0, 100)
	require.NoError(t, err)
	require.Equal(t, int64(100), n)
	require.Equal(t, "version=1 rows=100 sum=4950 schema=id:int64,name:string", pylance())

	_, err = ingest(adbc.OptionValueIngestModeCreate, 0, 1)
	var ae adbc.Error
	require.ErrorAs(t, err, &ae, "create over an existing table")
	require.Equal(t, adbc.StatusAlreadyExists, ae.Code, ae.Msg)

	n, err = ingest(adbc.OptionValueIngestModeAppend, 0, 10)
	require.NoError(t, err)
	require.Equal(t, int64(10), n)
	require.Equal(t, "version=2 rows=110 sum=4995 schema=id:int64,name:string", pylance())

	got, err := adbcQuery(ctx, t, cn, "SELECT count(*) AS n, sum(id) AS s FROM people")
	require.NoError(t, err)
	require.Equal(t, [][]string{{"110", "4995"}}, got.Rows)
}

// peopleBatch builds rows (id int64, name utf8) for ids [from, from+n).
func peopleBatch(mem memory.Allocator, from, n int) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(mem, sc)
	defer bld.Release()
	for i := from; i < from+n; i++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		bld.Field(1).(*array.StringBuilder).Append("n" + itoa(int64(i)))
	}
	return bld.NewRecordBatch()
}
