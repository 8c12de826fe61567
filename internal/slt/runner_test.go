package slt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/slt"
)

// fakeEngine answers from a table keyed by SQL and records the statements it ran.
type fakeEngine struct {
	results map[string]fakeResult
	ran     []string
}

type fakeResult struct {
	types string
	rows  [][]string
	err   error
}

func (e *fakeEngine) Exec(_ context.Context, sql string) error {
	e.ran = append(e.ran, sql)
	return e.results[sql].err
}

func (e *fakeEngine) Query(_ context.Context, sql string) (string, [][]string, error) {
	e.ran = append(e.ran, sql)
	r, ok := e.results[sql]
	if !ok {
		return "", nil, errors.New("unknown query " + sql)
	}
	return r.types, r.rows, r.err
}

const runFile = `statement ok
CREATE TABLE t (a INT)

statement error no such table
SELECT * FROM missing

statement error
SELECT * FROM missing

statement error other text
SELECT * FROM missing

statement error
SELECT 1

query II rowsort
SELECT a, b FROM t
----
1	2
3	4

query II
SELECT a, b FROM t
----
1	2
3	4

query I valuesort same
SELECT a FROM t
----
1
3

query I valuesort same
SELECT b FROM t

query T
SELECT 'x', 'y'

onlyif duckdb
query I
SELECT never

skipif config small
query I
SELECT a FROM t
----
1
3

query R
SELECT broken
`

func TestRunner(t *testing.T) {
	e := &fakeEngine{results: map[string]fakeResult{
		"SELECT * FROM missing": {err: errors.New("catalog: no such table missing")},
		"SELECT 1":              {types: "I", rows: [][]string{{"1"}}},
		"SELECT a, b FROM t":    {types: "II", rows: [][]string{{"3", "4"}, {"1", "2"}}},
		"SELECT a FROM t":       {types: "I", rows: [][]string{{"3"}, {"1"}}},
		"SELECT b FROM t":       {types: "I", rows: [][]string{{"4"}, {"2"}}},
		"SELECT 'x', 'y'":       {types: "TT", rows: [][]string{{"x", "y"}}},
		"SELECT broken":         {err: errors.New("boom")},
	}}
	f, err := slt.Parse("run.test", runFile)
	require.NoError(t, err)
	r := &slt.Runner{Engine: e, Tags: []string{"flightd", "config small"}}
	outcomes := r.Run(context.Background(), f)

	type result struct {
		line    int
		status  slt.Status
		summary string
	}
	var got []result
	for _, o := range outcomes {
		got = append(got, result{o.Record.Line, o.Status, o.Summary()})
	}
	require.Equal(t, []result{
		{1, slt.Pass, ""},
		{4, slt.Pass, ""},
		{7, slt.Pass, ""},
		{10, slt.Fail, `error "catalog: no such table missing" does not match "other text"`},
		{13, slt.Fail, `statement succeeded, want an error matching ""`},
		{16, slt.Pass, ""},
		{22, slt.Fail, "wrong result: first difference at result line 1 (want 2 lines, got 2)"},
		{28, slt.Pass, ""},
		{34, slt.Fail, "result differs from the earlier query labelled same: first difference at result line 1 (want 2 lines, got 2)"},
		{37, slt.Fail, "wrong column count: want 1 (T), got 2 (TT)"},
		{41, slt.Skipped, ""},
		{45, slt.Skipped, ""},
		{51, slt.Fail, "query failed: boom"},
	}, got)
	require.NotContains(t, e.ran, "SELECT never")

	r.IgnoreErrorPatterns = true
	outcomes = r.Run(context.Background(), f)
	require.Equal(t, slt.Pass, outcomes[3].Status, "error patterns ignored")
}

func TestRunnerRequire(t *testing.T) {
	f, err := slt.Parse("req.test", "query I\nSELECT 1\n----\n1\n\nrequire lance\n\nquery I\nSELECT 1\n----\n1\n")
	require.NoError(t, err)
	e := &fakeEngine{results: map[string]fakeResult{"SELECT 1": {types: "I", rows: [][]string{{"1"}}}}}
	for _, c := range []struct {
		features []string
		want     []slt.Status
	}{
		{nil, []slt.Status{slt.Pass, slt.Skipped}},
		{[]string{"lance"}, []slt.Status{slt.Pass, slt.Pass}},
	} {
		r := &slt.Runner{Engine: e, Features: c.features}
		var got []slt.Status
		for _, o := range r.Run(context.Background(), f) {
			got = append(got, o.Status)
		}
		require.Equal(t, c.want, got)
	}
}

func TestRunnerTypeMismatch(t *testing.T) {
	cases := []struct {
		header, types, want string
	}{
		{"query IR", "IR", ""},
		{"query I?", "IT", ""},
		{"query IR", "II", "wrong column types: want IR, got II"},
		{"query I", "II", "wrong column count: want 1 (I), got 2 (II)"},
	}
	for _, c := range cases {
		t.Run(c.header+"/"+c.types, func(t *testing.T) {
			rows := [][]string{make([]string, len(c.types))}
			e := &fakeEngine{results: map[string]fakeResult{"SELECT 1": {types: c.types, rows: rows}}}
			f, err := slt.Parse("x", c.header+"\nSELECT 1\n")
			require.NoError(t, err)
			out := (&slt.Runner{Engine: e}).Run(context.Background(), f)
			require.Equal(t, c.want, out[0].Summary())
		})
	}
}

func TestRewrite(t *testing.T) {
	in := `# header stays

statement ok
CREATE TABLE t (a INT)

query T rowsort lbl
SELECT a FROM t
----
stale
lines

query I
SELECT 1

onlyif flightd
query I
SELECT flightd_only()
----
7

query I
SELECT empty
----
1
`
	want := `# header stays

statement ok
CREATE TABLE t (a INT)

query I rowsort lbl
SELECT a FROM t
----
1
2

query I
SELECT 1
----
1

onlyif flightd
query I
SELECT flightd_only()
----
7

query I
SELECT empty
----
`
	e := &fakeEngine{results: map[string]fakeResult{
		"SELECT a FROM t": {types: "I", rows: [][]string{{"2"}, {"1"}}},
		"SELECT 1":        {types: "I", rows: [][]string{{"1"}}},
		"SELECT empty":    {types: "I"},
	}}
	f, err := slt.Parse("rw.test", in)
	require.NoError(t, err)
	r := &slt.Runner{Engine: e, Tags: []string{"duckdb"}}
	got, err := r.Rewrite(context.Background(), f)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// The rewritten file is a fixed point.
	f2, err := slt.Parse("rw.test", got)
	require.NoError(t, err)
	again, err := r.Rewrite(context.Background(), f2)
	require.NoError(t, err)
	require.Equal(t, got, again)
}

func TestRewriteErrors(t *testing.T) {
	cases := []struct {
		name, text, msg string
	}{
		{"failing statement", "statement ok\nSELECT bad\n", "rewrite rw.test:1: statement failed: nope"},
		{"failing query", "query I\nSELECT bad\n", "rewrite rw.test:1: query failed: nope"},
		{"unexpected success", "statement error\nSELECT 1\n", "rewrite rw.test:1: statement succeeded"},
	}
	e := &fakeEngine{results: map[string]fakeResult{
		"SELECT bad": {err: errors.New("nope")},
		"SELECT 1":   {types: "I", rows: [][]string{{"1"}}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := slt.Parse("rw.test", c.text)
			require.NoError(t, err)
			_, err = (&slt.Runner{Engine: e}).Rewrite(context.Background(), f)
			require.ErrorContains(t, err, c.msg)
		})
	}
}

func TestKnownFailures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "known.txt")
	k, err := slt.LoadKnownFailures(path)
	require.NoError(t, err)
	require.Empty(t, k, "a missing list is empty")

	f, err := slt.Parse("a.test", "query I\nSELECT 1\n----\n1\n\nquery I\nSELECT 2\n----\n2\n\nquery I\nSELECT 3\n----\n3\n")
	require.NoError(t, err)
	outcomes := []slt.Outcome{
		{Record: f.Records[0], Status: slt.Fail, Message: "wrong result: x\tdetail\nmore"},
		{Record: f.Records[1], Status: slt.Pass},
		{Record: f.Records[2], Status: slt.Skipped},
	}
	k["b.test:3"] = "other file"
	k["a.test:6"] = "was failing"
	k.Record("a.test", outcomes)
	require.Equal(t, slt.KnownFailures{"a.test:1": "wrong result: x detail", "b.test:3": "other file"}, k)

	k["a.test:6"] = "was failing"
	k["a.test:11"] = "skipped entries stay"
	k["a.test:10"] = "sorted numerically"
	require.NoError(t, k.Write(path, "header\nline two"))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "# header\n# line two\na.test:1\twrong result: x detail\na.test:6\twas failing\n"+
		"a.test:10\tsorted numerically\na.test:11\tskipped entries stay\nb.test:3\tother file\n", string(b))

	loaded, err := slt.LoadKnownFailures(path)
	require.NoError(t, err)
	require.Equal(t, k, loaded)

	unexpected, fixed, stale := loaded.Compare("a.test", outcomes)
	require.Empty(t, unexpected)
	require.Len(t, fixed, 1)
	require.Equal(t, 6, fixed[0].Record.Line)
	require.Equal(t, []string{"a.test:10"}, stale, "line 10 is no record; line 11 is a skipped one")

	unexpected, fixed, stale = slt.KnownFailures{}.Compare("a.test", outcomes)
	require.Len(t, unexpected, 1)
	require.Equal(t, 1, unexpected[0].Record.Line)
	require.Empty(t, fixed)
	require.Empty(t, stale)

	require.NoError(t, os.WriteFile(path, []byte("no position here\n"), 0o644))
	_, err = slt.LoadKnownFailures(path)
	require.ErrorContains(t, err, "want file:line<TAB>summary")
}
