package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/build"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/planner"
)

// dmlReplay is what dml_replay.py reports.
type dmlReplay struct {
	Counts   []int64     `json:"counts"`
	DuckDB   [][]*string `json:"duckdb"`
	Lance    [][]*string `json:"lance"`
	Version  int64       `json:"version"`
	Versions int         `json:"versions"`
}

func replayDML(t *testing.T, dataset string, stmts []string) dmlReplay {
	t.Helper()
	var r dmlReplay
	require.NoError(t, json.Unmarshal(itest.RunScript(t, "dml_replay.py", append([]string{dataset}, stmts...)...), &r))
	return r
}

// dmlStatements are run through ExecuteUpdate; each affects rows, so each commits one
// version. Their counts are DuckDB's.
var dmlStatements = []string{
	"INSERT INTO items VALUES (100, 'x', 1.5), (101, NULL, NULL)",
	"INSERT INTO items (price, id) VALUES ('2.25', 102)",                                  // cast from text, name NULL
	"INSERT INTO items (id, name) SELECT id + 1000, upper(name) FROM items WHERE id < 10", // price NULL
	"UPDATE items SET price = price * 2, name = name || '!' WHERE id % 3 = 0",
	"DELETE FROM items WHERE id > 1000 AND id < 1005",
	"DELETE FROM items WHERE name IS NULL",
	"UPDATE items AS i SET name = 'cheap' WHERE i.price < (SELECT avg(price) FROM items)",
	"DELETE FROM main.items WHERE id IN (SELECT id FROM items WHERE id BETWEEN 20 AND 22)",
}

// TestDMLMatchesDuckDB runs INSERT, UPDATE and DELETE through arrow-go's Flight SQL client
// (ad-hoc and prepared, with parameters) on tables of each data storage version, and checks
// with pylance that every statement committed exactly one version and with DuckDB, which
// ran the same statements, that the rows and the counts agree.
func TestDMLMatchesDuckDB(t *testing.T) {
	for _, format := range []string{"2.0", "2.1", "2.2"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			itest.RunScript(t, "dml_tables.py", root, format)
			srv := itest.StartServer(t, root, flightsrv.Config{})
			ctx := context.Background()
			cl := itest.Dial(t, srv.Addr)

			var replay []string
			var counts []int64
			for _, sql := range dmlStatements {
				n, err := cl.ExecuteUpdate(ctx, sql)
				require.NoError(t, err, sql)
				require.Positive(t, n, sql)
				replay, counts = append(replay, sql), append(counts, n)
			}
			n := preparedInsert(ctx, t, cl)
			require.Equal(t, int64(2), n)
			replay = append(replay, "INSERT INTO items VALUES (200, 'p', 2.5)", "INSERT INTO items VALUES (201, NULL, 3.5)")
			counts = append(counts, 1, 1)
			n = preparedUpdate(ctx, t, cl)
			require.Equal(t, int64(1), n)
			replay, counts = append(replay, "UPDATE items SET price = 9.75 WHERE id = 200"), append(counts, 1)

			got := replayDML(t, filepath.Join(root, "items.lance"), replay)
			require.Equal(t, counts, got.Counts, "DuckDB's counts")
			require.Equal(t, got.DuckDB, got.Lance, "pylance's rows of flightd's writes vs DuckDB's rows")
			require.Equal(t, int64(1+len(replay)), got.Version, "one version per statement")
			require.Equal(t, 1+len(replay), got.Versions)
		})
	}
}

// preparedInsert prepares an INSERT with three parameters and executes it with two rows
// of values (executemany: one commit per row).
func preparedInsert(ctx context.Context, t *testing.T, cl *flightsql.Client) int64 {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stmt, err := cl.Prepare(ctx, "INSERT INTO items VALUES (?, ?, ?)")
	require.NoError(t, err)
	defer stmt.Close(ctx)
	require.Zero(t, stmt.DatasetSchema().NumFields(), "a write has no result set (JDBC tells updates by it)")
	ps := stmt.ParameterSchema()
	require.Equal(t, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64},
		[]arrow.DataType{ps.Field(0).Type, ps.Field(1).Type, ps.Field(2).Type})

	b := array.NewRecordBuilder(mem, ps)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{200, 201}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"p", ""}, []bool{true, false})
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{2.5, 3.5}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	stmt.SetParameters(rec)
	n, err := stmt.ExecuteUpdate(ctx)
	require.NoError(t, err)
	return n
}

// preparedUpdate prepares an UPDATE whose SET and WHERE take parameters.
func preparedUpdate(ctx context.Context, t *testing.T, cl *flightsql.Client) int64 {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stmt, err := cl.Prepare(ctx, "UPDATE items SET price = ? WHERE id = ?")
	require.NoError(t, err)
	defer stmt.Close(ctx)
	require.Zero(t, stmt.DatasetSchema().NumFields())
	ps := stmt.ParameterSchema()
	require.Equal(t, arrow.FLOAT64, ps.Field(0).Type.ID())
	require.Equal(t, arrow.INT64, ps.Field(1).Type.ID())

	// Executing before binding is a clear error, and writes nothing.
	_, err = stmt.ExecuteUpdate(ctx)
	require.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)

	b := array.NewRecordBuilder(mem, ps)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).Append(9.75)
	b.Field(1).(*array.Int64Builder).Append(200)
	rec := b.NewRecordBatch()
	defer rec.Release()
	stmt.SetParameters(rec)
	n, err := stmt.ExecuteUpdate(ctx)
	require.NoError(t, err)
	return n
}

// TestDMLErrors checks the status codes of writes that cannot be done, and that none of them
// commits a version, while a write that matches no row does.
func TestDMLErrors(t *testing.T) {
	root := t.TempDir()
	itest.RunScript(t, "dml_tables.py", root, "2.2")
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	tests := []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{"SELECT * FROM items", codes.InvalidArgument, "not an INSERT, UPDATE or DELETE"},
		{"INSERT INTO items (name) VALUES ('x')", codes.Aborted, "NOT NULL constraint failed: items.id"},
		{"INSERT INTO items VALUES (NULL, 'x', 1)", codes.Aborted, "NOT NULL constraint failed: items.id"},
		{"UPDATE items SET id = NULL WHERE id = 3", codes.Aborted, "NOT NULL constraint failed: items.id"},
		{"INSERT INTO items VALUES ('seven', 'x', 1)", codes.InvalidArgument, "Conversion"},
		{"DELETE FROM items AT (VERSION => 1) WHERE id = 1", codes.InvalidArgument, "past version"},
		{"UPDATE items AT (VERSION => 1) SET name = 'x'", codes.InvalidArgument, "past version"},
		{"INSERT INTO missing VALUES (1)", codes.NotFound, "missing"},
		{"DELETE FROM missing", codes.NotFound, "missing"},
		{"UPDATE items SET nope = 1", codes.InvalidArgument, "nope"},
		{"UPDATE items SET name = 'x' FROM items", codes.Unimplemented, "UPDATE ... FROM"},
		{"DELETE FROM items WHERE id = ?", codes.InvalidArgument, "bind values"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, err := cl.ExecuteUpdate(ctx, tt.sql)
			require.Equal(t, tt.code, status.Code(err), "%v", err)
			require.ErrorContains(t, err, tt.msg)
		})
	}
	got := replayDML(t, filepath.Join(root, "items.lance"), nil)
	require.Equal(t, int64(1), got.Version, "no failed write committed a version")

	// A statement that matches nothing affects no row and still commits one (empty) version,
	// as pylance's delete and update do.
	empty := []string{"DELETE FROM items WHERE id < 0", "UPDATE items SET name = 'x' WHERE false",
		"INSERT INTO items SELECT * FROM items WHERE id < 0"}
	for _, sql := range empty {
		n, err := cl.ExecuteUpdate(ctx, sql)
		require.NoError(t, err)
		require.Zero(t, n)
	}
	got = replayDML(t, filepath.Join(root, "items.lance"), empty)
	require.Equal(t, []int64{0, 0, 0}, got.Counts)
	require.Equal(t, got.DuckDB, got.Lance)
	require.Equal(t, int64(1+len(empty)), got.Version)
}

// TestDMLAsQuery sends a write as a query (CommandStatementQuery, as ADBC's cursor.execute and
// DBeaver's SQL editor do): it runs once, at GetFlightInfo, whose TotalRecords is the count,
// and the ticket streams the count as DuckDB's one-row "Count" result, without writing again.
func TestDMLAsQuery(t *testing.T) {
	root := t.TempDir()
	itest.RunScript(t, "dml_tables.py", root, "2.1")
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)

	sql := "DELETE FROM items WHERE id >= 25"
	info, err := cl.Execute(ctx, sql)
	require.NoError(t, err)
	require.Equal(t, int64(5), info.TotalRecords)
	for range 2 { // fetching twice replays the count; it does not delete again
		res, err := fetchAll(ctx, t, cl, info.Endpoint[0].Ticket.Ticket)
		require.NoError(t, err)
		require.Equal(t, "Count\n5\n", res.String())
	}
	res, err := itest.Query(ctx, t, cl, "SELECT count(*) AS n FROM items")
	require.NoError(t, err)
	require.Equal(t, "n\n25\n", res.String())

	// A prepared write executed as a query runs the same way.
	stmt, err := cl.Prepare(ctx, "UPDATE items SET name = 'q' WHERE id < 2")
	require.NoError(t, err)
	defer stmt.Close(ctx)
	info, err = stmt.Execute(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), info.TotalRecords)
	res, err = fetchAll(ctx, t, cl, info.Endpoint[0].Ticket.Ticket)
	require.NoError(t, err)
	require.Equal(t, "Count\n2\n", res.String())

	got := replayDML(t, filepath.Join(root, "items.lance"), []string{sql, "UPDATE items SET name = 'q' WHERE id < 2"})
	require.Equal(t, []int64{5, 2}, got.Counts)
	require.Equal(t, got.DuckDB, got.Lance)
	require.Equal(t, int64(3), got.Version)
}

// fetchAll reads one ticket's stream under a checked allocator.
func fetchAll(ctx context.Context, t *testing.T, cl *flightsql.Client, ticket []byte) (itest.Result, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rdr, err := cl.DoGet(ctx, &flight.Ticket{Ticket: ticket})
	if err != nil {
		return itest.Result{}, err
	}
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
	return itest.ToResult(rdr.Schema(), batches), rdr.Err()
}

// TestDMLCommitConflict plans a DELETE, lets a compaction rewrite the fragment it deletes
// from, then runs it: the commit fails with catalog.ErrCommitConflict (gRPC Aborted, so the
// client may retry) and leaves the table as the compaction made it.
func TestDMLCommitConflict(t *testing.T) {
	root := t.TempDir()
	itest.RunScript(t, "dml_tables.py", root, "2.2")
	ctx := context.Background()
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	cat := lancecat.New(store)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	p, err := planner.New(cat).PlanSQL(ctx, "DELETE FROM items WHERE id = 3")
	require.NoError(t, err)
	require.True(t, p.IsWrite)
	v, _, err := cat.Compact(ctx, "items", nil)
	require.NoError(t, err)
	require.Equal(t, uint64(2), v)

	op, err := build.Build(p.Write, exec.Env{Mem: mem})
	require.NoError(t, err)
	defer op.Close()
	require.NoError(t, op.Open(ctx))
	b, err := op.Next(ctx)
	require.Nil(t, b)
	require.ErrorIs(t, err, catalog.ErrCommitConflict)

	// Planned again, at the compacted version, the same statement commits.
	p, err = planner.New(cat).PlanSQL(ctx, "DELETE FROM items WHERE id = 3")
	require.NoError(t, err)
	op2, err := build.Build(p.Write, exec.Env{Mem: mem})
	require.NoError(t, err)
	defer op2.Close()
	require.NoError(t, op2.Open(ctx))
	b, err = op2.Next(ctx)
	require.NoError(t, err)
	defer b.Release()
	require.Equal(t, "Count\n1\n", itest.ToResult(b.Schema(), []arrow.RecordBatch{b}).String())
	got := replayDML(t, filepath.Join(root, "items.lance"), []string{"DELETE FROM items WHERE id = 3"})
	require.Equal(t, got.DuckDB, got.Lance)
	require.Equal(t, int64(3), got.Version)
}

// TestCreateTable creates tables through ExecuteUpdate (column list, AS query, OR REPLACE,
// IF NOT EXISTS) and checks them with pylance.
func TestCreateTable(t *testing.T) {
	root := t.TempDir()
	itest.RunScript(t, "dml_tables.py", root, "2.2")
	srv := itest.StartServer(t, root, flightsrv.Config{})
	ctx := context.Background()
	cl := itest.Dial(t, srv.Addr)
	steps := []struct {
		sql  string
		rows int64
		code codes.Code
	}{
		{"CREATE TABLE made (id BIGINT NOT NULL, name VARCHAR, day DATE)", 0, codes.OK},
		{"INSERT INTO made VALUES (1, 'a', '2026-01-02'), (2, NULL, NULL)", 2, codes.OK},
		{"CREATE TABLE made (x INT)", 0, codes.AlreadyExists},
		{"CREATE TABLE IF NOT EXISTS made (x INT)", 0, codes.OK},
		{"CREATE TABLE cheap AS SELECT id, price FROM items WHERE price < 6", 4, codes.OK},
		{"CREATE OR REPLACE TABLE cheap AS SELECT id * 10 AS id10 FROM items WHERE id < 3", 3, codes.OK},
		{"CREATE TABLE bad (id INT PRIMARY KEY)", 0, codes.Unimplemented},
	}
	for _, st := range steps {
		n, err := cl.ExecuteUpdate(ctx, st.sql)
		require.Equal(t, st.code, status.Code(err), "%s: %v", st.sql, err)
		require.Equal(t, st.rows, n, st.sql)
	}
	summary := func(name string) string {
		return strings.TrimSpace(string(itest.RunScript(t, "lance_summary.py", filepath.Join(root, name+".lance"))))
	}
	require.Equal(t, "version=2 rows=2 sum=3 schema=id:int64,name:string,day:date32[day]", summary("made"))
	require.Equal(t, "version=2 rows=3 sum=None schema=id10:int64", summary("cheap"))
	res, err := itest.Query(ctx, t, cl, "SELECT id10 FROM cheap ORDER BY id10")
	require.NoError(t, err)
	require.Equal(t, "id10\n0\n10\n20\n", res.String())
	_, err = os.Stat(filepath.Join(root, "bad.lance"))
	require.True(t, os.IsNotExist(err), "a refused CREATE TABLE leaves nothing behind")
}
