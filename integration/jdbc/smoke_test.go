package jdbc

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// column is one ResultSetMetaData column as JdbcSmoke prints it.
type column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	JDBCType int    `json:"jdbcType"`
}

// step is one line of JdbcSmoke's output.
type step struct {
	Run            string   `json:"run"`
	Step           string   `json:"step"`
	Via            string   `json:"via"`
	SQL            string   `json:"sql"`
	OK             bool     `json:"ok"`
	Error          string   `json:"error"`
	SQLState       string   `json:"sqlState"`
	DriverVersion  string   `json:"driverVersion"`
	Product        string   `json:"product"`
	Quote          string   `json:"quote"`
	Called         int      `json:"called"`
	Failures       []string `json:"failures"`
	Columns        []column `json:"columns"`
	Rows           [][]any  `json:"rows"`
	Count          *int64   `json:"count"`
	ParameterCount *int     `json:"parameterCount"`
}

// names returns the column names of a result step.
func (s step) names() []string {
	var ns []string
	for _, c := range s.Columns {
		ns = append(ns, c.Name)
	}
	return ns
}

// result reduces a result step to canonical text, like oracle does for DuckDB.
func (s step) result(t *testing.T) result {
	t.Helper()
	res := result{Names: s.names()}
	for _, r := range s.Rows {
		row := make([]string, len(r))
		for i, v := range r {
			c, err := canonicalJSON(v)
			require.NoError(t, err, "%s %s row %v", s.Step, s.SQL, r)
			row[i] = c
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// run is the parsed output of one JdbcSmoke run.
type run struct {
	steps  []step
	stderr string
}

// find returns the step with the given name, way and SQL ("" matches a step without them).
func (r run) find(t *testing.T, name, via, sql string) step {
	t.Helper()
	for _, s := range r.steps {
		if s.Step == name && s.Via == via && s.SQL == sql {
			return s
		}
	}
	t.Fatalf("JdbcSmoke printed no step %q via %q for %q; it printed %d steps; stderr:\n%s",
		name, via, sql, len(r.steps), r.stderr)
	return step{}
}

// smokeArgs is what one JdbcSmoke run does.
type smokeArgs struct {
	name       string
	url        string
	props      map[string]string
	metadata   bool
	queries    []string
	previews   []string
	paramQuery string
	param      int64
	updates    []string
	writeTable string // a table (id int64, name utf8) the run writes to; "" for none
}

func (a smokeArgs) argv() []string {
	args := []string{a.url, "--name", a.name}
	keys := make([]string, 0, len(a.props))
	for k := range a.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--prop", k+"="+a.props[k])
	}
	if !a.metadata {
		args = append(args, "--no-metadata")
	}
	for _, q := range a.queries {
		args = append(args, "--query", q)
	}
	for _, q := range a.previews {
		args = append(args, "--preview", q)
	}
	if a.paramQuery != "" {
		args = append(args, "--param-query", a.paramQuery, "--param", strconv.FormatInt(a.param, 10))
	}
	for _, u := range a.updates {
		args = append(args, "--update", u)
	}
	if a.writeTable != "" {
		args = append(args, "--write-table", a.writeTable)
	}
	return args
}

// smoke runs JdbcSmoke with one driver jar, doing runs one after the other in one JVM (the
// driver loads once), and returns each run's parsed JSON lines by name.
func (h *harness) smoke(t *testing.T, version string, runs []smokeArgs) map[string]run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cp := h.smokeJar + string(filepath.ListSeparator) + h.drivers[version]
	args := []string{"--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", cp, "flightd.jdbc.JdbcSmoke"}
	for i, a := range runs {
		if i > 0 {
			args = append(args, "---")
		}
		args = append(args, a.argv()...)
	}
	cmd := exec.CommandContext(ctx, h.java, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "JdbcSmoke with driver %s failed: %s\nstdout:\n%s", version, tail(stderr.Bytes()), stdout.String())
	out := map[string]run{}
	for _, a := range runs {
		out[a.name] = run{stderr: tail(stderr.Bytes())}
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var s step
		require.NoError(t, dec.Decode(&s), "JdbcSmoke printed a line that is not JSON: %s", line)
		r, ok := out[s.Run]
		require.True(t, ok, "JdbcSmoke printed a line for an unknown run: %s", line)
		r.steps = append(r.steps, s)
		out[s.Run] = r
	}
	return out
}
