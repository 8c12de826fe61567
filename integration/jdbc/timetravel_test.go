package jdbc

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
)

// TestJDBCTimeTravel pins table versions the only way a JDBC tool such as DBeaver can without
// changing its SQL: extra connection properties, which the driver sends as a header on every
// call (flightsrv/asof.go). h.lance has version 1 (x = 1..3, tagged "first") and version 2
// (x = 1..5); every query is run the three ways JdbcSmoke runs queries (statement, execute,
// prepared).
func TestJDBCTimeTravel(t *testing.T) {
	if testing.Short() {
		t.Skip("JDBC harness skipped in -short mode (needs JDK 17+, Maven and Maven Central on a cold ~/.m2)")
	}
	h := buildHarness(t)
	root := t.TempDir()
	out := strings.TrimSpace(string(itest.RunScript(t, "asof_tables.py", root)))
	ns, err := strconv.ParseInt(out, 10, 64) // an instant between the two commits
	require.NoError(t, err, out)
	between := time.Unix(0, ns).UTC()
	srv := itest.StartServer(t, root, flightsrv.Config{})
	base := "jdbc:arrow-flight-sql://" + srv.Addr + "/?useEncryption=false"
	const sql = "SELECT count(*) AS n FROM h"
	cases := []struct {
		name  string
		url   string
		props map[string]string
		want  string
	}{
		{"latest", base, nil, "5"},
		{"as-of-property", base, map[string]string{flightsrv.HeaderAsOf: between.Format(time.RFC3339Nano)}, "3"},
		{"version-in-url", base + "&flightd-version-h=1", nil, "3"},
		{"tag-property", base, map[string]string{"flightd-version-h": "first"}, "3"},
	}
	var runs []smokeArgs
	for _, c := range cases {
		runs = append(runs, smokeArgs{name: c.name, url: c.url, props: c.props, queries: []string{sql}})
	}
	for _, v := range h.versions() {
		got := h.smoke(t, v, runs)
		t.Run(v, func(t *testing.T) {
			for _, c := range cases {
				for _, via := range []string{"statement", "execute", "prepared"} {
					s := got[c.name].find(t, "query", via, sql)
					require.True(t, s.OK, "%s via %s: %s", c.name, via, s.Error)
					require.Equal(t, [][]string{{c.want}}, s.result(t).Rows, "%s via %s", c.name, via)
				}
			}
		})
	}
}
