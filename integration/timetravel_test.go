package integration

import (
	"context"
	"database/sql"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	_ "github.com/apache/arrow-go/v18/arrow/flight/flightsql/driver" // database/sql driver "flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// writeAsOfTable writes h.lance (version 1: x = 1..3, tagged "first"; version 2: x = 1..5)
// and returns the root and an instant between the two commits.
func writeAsOfTable(t *testing.T) (string, time.Time) {
	t.Helper()
	root := t.TempDir()
	out := strings.TrimSpace(string(itest.RunScript(t, "asof_tables.py", root)))
	ns, err := strconv.ParseInt(out, 10, 64)
	require.NoError(t, err, out)
	return root, time.Unix(0, ns).UTC()
}

// TestTimeTravelHeaders pins table versions with request headers, as JDBC URL properties, ADBC
// call headers and pyarrow call options send them: the SQL's AT clause wins, the version is
// pinned in the ticket (a DoGet without the header reads the same snapshot), and a bad value
// is INVALID_ARGUMENT.
func TestTimeTravelHeaders(t *testing.T) {
	root, between := writeAsOfTable(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	cases := []struct {
		name    string
		headers []string
		sql     string
		want    string
		code    codes.Code
	}{
		{"no header", nil, "SELECT count(*), max(x) FROM h", "5 5", codes.OK},
		{"as of between commits", []string{"flightd-as-of", between.Format(time.RFC3339Nano)}, "SELECT count(*), max(x) FROM h", "3 3", codes.OK},
		{"as of now", []string{"flightd-as-of", time.Now().Add(time.Minute).Format(time.RFC3339)}, "SELECT count(*), max(x) FROM h", "5 5", codes.OK},
		{"table version", []string{"flightd-version-h", "1"}, "SELECT count(*), max(x) FROM h", "3 3", codes.OK},
		{"table tag", []string{"flightd-version-h", "first"}, "SELECT count(*), max(x) FROM h", "3 3", codes.OK},
		{"session spelling as header", []string{"flightd.version.h", "1"}, "SELECT count(*), max(x) FROM h", "3 3", codes.OK},
		{"AT wins", []string{"flightd-version-h", "1"}, "SELECT count(*), max(x) FROM h AT (VERSION => 2)", "5 5", codes.OK},
		{"both versions in one query", []string{"flightd-version-h", "1"}, "SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM h AT (VERSION => 2))", "3 5", codes.OK},
		{"bad timestamp", []string{"flightd-as-of", "last tuesday"}, "SELECT 1", "", codes.InvalidArgument},
		{"before the table existed", []string{"flightd-as-of", "2000-01-01T00:00:00Z"}, "SELECT count(*) FROM h", "", codes.NotFound},
		{"no such version", []string{"flightd-version-h", "9"}, "SELECT count(*) FROM h", "", codes.NotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := metadata.AppendToOutgoingContext(context.Background(), tc.headers...)
			info, err := cl.Execute(ctx, tc.sql)
			if tc.code != codes.OK {
				require.Equal(t, tc.code, status.Code(err), "%v", err)
				return
			}
			require.NoError(t, err)
			// DoGet without any header: the ticket carries the pinned version.
			rdr, err := cl.DoGet(context.Background(), info.Endpoint[0].Ticket)
			require.NoError(t, err)
			defer rdr.Release()
			require.True(t, rdr.Next())
			b := rdr.RecordBatch()
			require.Equal(t, tc.want, b.Column(0).ValueStr(0)+" "+b.Column(1).ValueStr(0))
		})
	}
}

// TestTimeTravelSessionOption pins the version through the session, as ADBC's
// adbc.flight.sql.session.option.flightd.as_of does; headers override the session, erasing
// the option restores the latest version, and a bad value is refused per option.
func TestTimeTravelSessionOption(t *testing.T) {
	root, between := writeAsOfTable(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	var jar cookieJar
	countRows := func(headers ...string) string {
		t.Helper()
		ctx := metadata.AppendToOutgoingContext(jar.ctx(), headers...)
		info, err := cl.Execute(ctx, "SELECT count(*) FROM h", jar.opts()...)
		require.NoError(t, err)
		jar.update(t)
		rdr, err := cl.DoGet(context.Background(), info.Endpoint[0].Ticket)
		require.NoError(t, err)
		defer rdr.Release()
		require.True(t, rdr.Next())
		return rdr.RecordBatch().Column(0).ValueStr(0)
	}
	set := func(opts map[string]any) *flight.SetSessionOptionsResult {
		t.Helper()
		vals, err := flight.NewSessionOptionValues(opts)
		require.NoError(t, err)
		res, err := cl.SetSessionOptions(jar.ctx(), &flight.SetSessionOptionsRequest{SessionOptions: vals}, jar.opts()...)
		require.NoError(t, err)
		jar.update(t)
		return res
	}

	require.Empty(t, set(map[string]any{flightsrv.OptionAsOf: between.Format(time.RFC3339Nano)}).GetErrors())
	require.Equal(t, "3", countRows())
	require.Equal(t, "5", countRows("flightd-version-h", "2"), "a header beats the session")

	res := set(map[string]any{flightsrv.OptionAsOf: "not a time", "flightd.version.h": int64(0)})
	require.Len(t, res.GetErrors(), 2)
	require.Equal(t, flight.SetSessionOptionsResultErrorInvalidValue, res.GetErrors()[flightsrv.OptionAsOf].GetValue())
	require.Equal(t, "3", countRows(), "a refused value leaves the option as it was")

	require.Empty(t, set(map[string]any{"flightd.version.h": int64(2)}).GetErrors())
	require.Equal(t, "5", countRows(), "a per-table version beats as_of")

	require.Empty(t, set(map[string]any{flightsrv.OptionAsOf: nil, "flightd.version.h": nil}).GetErrors())
	require.Equal(t, "5", countRows(), "erased options")
	got, err := cl.GetSessionOptions(jar.ctx(), &flight.GetSessionOptionsRequest{}, jar.opts()...)
	require.NoError(t, err)
	require.NotContains(t, got.GetSessionOptions(), flightsrv.OptionAsOf)
	require.NotContains(t, got.GetSessionOptions(), "flightd.version.h")
}

// TestTimeTravelPreparedAndDatabaseSQL: a prepared statement executed with the header reads
// the pinned version, and Go's database/sql driver sends an extra DSN parameter as a header.
func TestTimeTravelPreparedAndDatabaseSQL(t *testing.T) {
	root, between := writeAsOfTable(t)
	srv := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, srv.Addr)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "flightd-as-of", between.Format(time.RFC3339Nano))
	stmt, err := cl.Prepare(ctx, "SELECT count(*) FROM h")
	require.NoError(t, err)
	info, err := stmt.Execute(ctx)
	require.NoError(t, err)
	rdr, err := cl.DoGet(context.Background(), info.Endpoint[0].Ticket)
	require.NoError(t, err)
	require.True(t, rdr.Next())
	require.Equal(t, "3", rdr.RecordBatch().Column(0).ValueStr(0))
	rdr.Release()
	require.NoError(t, stmt.Close(context.Background()))

	dsn := "flightsql://" + srv.Addr + "?timeout=10s&flightd-as-of=" + url.QueryEscape(between.Format(time.RFC3339Nano))
	db, err := sql.Open("flightsql", dsn)
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	var n int64
	require.NoError(t, db.QueryRow("SELECT count(*) FROM h").Scan(&n))
	require.Equal(t, int64(3), n)
}
