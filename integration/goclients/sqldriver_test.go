package goclients

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-adbc/go/adbc/sqldriver"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// sqlDriverMem is the allocator behind the database/sql driver registered as "flightd-adbc":
// database/sql keeps one registration per process, so its buffers are checked per test
// through CurrentAlloc rather than a fresh allocator.
var (
	sqlDriverMem  = memory.NewCheckedAllocator(memory.NewGoAllocator())
	registerSQLDB sync.Once
)

// openSQL opens a database/sql handle on flightd through ADBC's sqldriver adapter; it is closed
// (and the driver's Arrow memory checked back at zero) when the test ends.
func openSQL(t *testing.T, addr string) *sql.DB {
	t.Helper()
	return openSQLDSN(t, adbc.OptionKeyURI+"=grpc://"+addr)
}

// openSQLDSN is openSQL with a full data source name: "key=value" ADBC options separated by
// semicolons.
func openSQLDSN(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	registerSQLDB.Do(func() {
		sql.Register("flightd-adbc", sqldriver.Driver{Driver: adbcDriver(sqlDriverMem)})
	})
	db, err := sql.Open("flightd-adbc", dsn)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, db.Close())
		require.Zero(t, sqlDriverMem.CurrentAlloc(), "database/sql driver leaked Arrow memory")
	})
	return db
}

// scanAll reads rows of (int64, string) pairs.
func scanAll(t *testing.T, rows *sql.Rows) [][2]any {
	t.Helper()
	defer func() { require.NoError(t, rows.Close()) }()
	var out [][2]any
	for rows.Next() {
		var a sql.NullInt64
		var b string
		require.NoError(t, rows.Scan(&a, &b))
		var av any
		if a.Valid {
			av = a.Int64
		}
		out = append(out, [2]any{av, b})
	}
	require.NoError(t, rows.Err())
	return out
}

func TestDatabaseSQLQueryAndScan(t *testing.T) {
	root := tables(t)
	const q = "SELECT a, b FROM t WHERE a > 5 ORDER BY a LIMIT 10"
	want := oracle(t, root, q, "SELECT count(*), sum(a), avg(c) FROM t")
	srv := itest.StartServer(t, root, flightsrv.Config{})
	db := openSQL(t, srv.Addr)
	ctx := context.Background()

	rows, err := db.QueryContext(ctx, q)
	require.NoError(t, err)
	cols, err := rows.Columns()
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, cols)
	types, err := rows.ColumnTypes()
	require.NoError(t, err)
	require.Equal(t, "int64", types[0].ScanType().Kind().String())
	got := scanAll(t, rows)
	require.Len(t, got, len(want[q].Rows))
	for i, r := range want[q].Rows {
		require.Equal(t, r[0], itoa(got[i][0].(int64)), "row %d", i)
		require.Equal(t, r[1], got[i][1], "row %d", i)
	}

	var n, s int64
	var avg float64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*), sum(a), avg(c) FROM t").Scan(&n, &s, &avg))
	w := want["SELECT count(*), sum(a), avg(c) FROM t"].Rows[0]
	aggs := []string{itoa(n), itoa(s), itest.Float(avg)}
	require.Equal(t, w, aggs)

	// NULLs scan into sql.Null* types.
	var a sql.NullInt64
	require.NoError(t, db.QueryRowContext(ctx, "SELECT a FROM t WHERE a IS NULL LIMIT 1").Scan(&a))
	require.False(t, a.Valid)

	// An error names the table, and the pool keeps working afterwards.
	_, err = db.QueryContext(ctx, "SELECT a FROM no_such_table")
	var ae adbc.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, adbc.StatusNotFound, ae.Code, ae.Msg)
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, int64(1000), n)
}

// TestDatabaseSQLPreparedArgs prepares a statement with placeholders and runs it with several
// argument sets, comparing each with DuckDB's result for the literal query.
//
// Each argument set gets its own Prepare: ADBC's sqldriver (v1.12.0) closes the underlying ADBC
// statement when the first result's rows are closed, so a *sql.Stmt runs once. Arguments on
// db.Query without Prepare do not work with it either (it binds them to an unprepared ADBC
// statement, which the Flight SQL driver takes for a bulk ingest without a target table).
func TestDatabaseSQLPreparedArgs(t *testing.T) {
	root := tables(t)
	args := []struct {
		a int64
		b string
	}{{500, "x"}, {100, "s001"}, {990, "s000"}}
	var lits []string
	for _, a := range args {
		lits = append(lits, "SELECT count(*), sum(a) FROM t WHERE a > "+itoa(a.a)+" AND b <> '"+a.b+"'")
	}
	want := oracle(t, root, lits...)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	db := openSQL(t, srv.Addr)
	ctx := context.Background()

	for i, a := range args {
		stmt, err := db.PrepareContext(ctx, "SELECT count(*), sum(a) FROM t WHERE a > ? AND b <> ?")
		require.NoError(t, err)
		var n, s int64
		require.NoError(t, stmt.QueryRowContext(ctx, a.a, a.b).Scan(&n, &s))
		require.NoError(t, stmt.Close())
		got := []string{itoa(n), itoa(s)}
		require.Equal(t, want[lits[i]].Rows[0], got, lits[i])
	}

	// Rows of a prepared statement with range arguments, scanned one by one.
	stmt, err := db.PrepareContext(ctx, "SELECT a, b FROM t WHERE a BETWEEN ? AND ? ORDER BY a")
	require.NoError(t, err)
	defer func() { require.NoError(t, stmt.Close()) }()
	rows, err := stmt.QueryContext(ctx, int64(10), int64(13))
	require.NoError(t, err)
	require.Equal(t, [][2]any{{int64(10), "s010"}, {int64(11), "s011"}, {int64(12), "s012"}, {int64(13), "s013"}}, scanAll(t, rows))
}
