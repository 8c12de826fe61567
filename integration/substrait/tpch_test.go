package substrait

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/catalog/lancecat"
	fexec "github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/integration/itest"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// knownRejected lists the TPC-H queries whose DataFusion plan flightd's consumer refuses,
// with the reason. knownWrong lists those it accepts but that do not (yet) return DuckDB's
// answer through the Substrait path, when flightd's SQL path fails the same way (execution,
// not consumption). The test fails when a listed query starts passing, so both lists only
// shrink.
var (
	knownRejected = map[string]string{}
	knownWrong    = map[string]string{}
)

// tpchCase is one query's inputs: its SQL text, DataFusion's Substrait plan and DuckDB's answer.
type tpchCase struct {
	name, sql string
	plan      []byte
	duck      itest.Result
}

// TestDataFusionTPCH sends DataFusion's Substrait plans of the 22 TPC-H queries to flightd:
// in-process (PlanSubstrait, then run) and over Flight SQL with arrow-go's ExecuteSubstrait,
// and compares the rows with DuckDB's answer and with flightd's SQL path.
func TestDataFusionTPCH(t *testing.T) {
	dir := t.TempDir()
	cases := tpchCases(t, dir)
	root := filepath.Join(dir, "data", "lance")
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	store, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(root))
	require.NoError(t, err)
	cat := lancecat.New(store)
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Mem: mem})
	require.NoError(t, err)
	remote := itest.StartServer(t, root, flightsrv.Config{})
	cl := itest.Dial(t, remote.Addr)
	pl := planner.New(cat)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := pl.PlanSubstrait(ctx, c.plan)
			if reason, known := knownRejected[c.name]; known {
				require.Error(t, err, "%s is listed as rejected (%s) but the consumer accepts it now: remove it from knownRejected", c.name, reason)
				t.Logf("consumer rejects (known): %v", err)
				return
			}
			require.NoError(t, err, "the consumer rejects DataFusion's plan")
			got, err := run(ctx, func(ctx context.Context) (fexec.Operator, error) { return srv.ExecuteSubstrait(ctx, c.plan) })
			problem := compare("substrait", got, err, c.duck)
			if reason, known := knownWrong[c.name]; known {
				require.NotEmpty(t, problem, "%s is listed as wrong (%s) but now passes: remove it from knownWrong", c.name, reason)
				sqlGot, sqlErr := run(ctx, func(ctx context.Context) (fexec.Operator, error) { return srv.Execute(ctx, c.sql) })
				require.NotEmpty(t, compare("sql", sqlGot, sqlErr, c.duck),
					"%s fails through Substrait only; the SQL path answers it: a consumer bug", c.name)
				t.Logf("known wrong (SQL path fails too): %s", firstLine(problem))
				return
			}
			require.Empty(t, problem)
			// The SQL path is only reported on: its failures are the binder's and executor's.
			sqlGot, sqlErr := run(ctx, func(ctx context.Context) (fexec.Operator, error) { return srv.Execute(ctx, c.sql) })
			if p := compare("sql", sqlGot, sqlErr, c.duck); p != "" {
				t.Logf("the Substrait plan answers like DuckDB, the SQL path does not: %s", firstLine(p))
			}
			overFlight, err := executeSubstrait(ctx, t, cl, c.plan)
			require.Empty(t, compare("flight", overFlight, err, c.duck))
		})
	}
}

// tpchCases generates TPC-H data (bench/tpch/gen.py at FLIGHTD_SUBSTRAIT_SF, default 0.01)
// under dir/data and DataFusion's plans and DuckDB's answers (df_plans.py) under dir/plans.
func tpchCases(t *testing.T, dir string) []tpchCase {
	t.Helper()
	sf := os.Getenv("FLIGHTD_SUBSTRAIT_SF")
	if sf == "" {
		sf = "0.01"
	}
	repo := testutil.RepoRoot(t)
	py := testutil.Python(t)
	data, plans, qdir := filepath.Join(dir, "data"), filepath.Join(dir, "plans"), filepath.Join(repo, "bench", "queries")
	out, err := exec.Command(py, filepath.Join(repo, "bench", "tpch", "gen.py"), sf, data).CombinedOutput()
	require.NoError(t, err, "generate TPC-H SF %s: %s", sf, out)
	out, err = exec.Command(py, filepath.Join(repo, "integration", "substrait", "df_plans.py"),
		filepath.Join(data, "parquet"), qdir, plans, filepath.Join(data, "tpch.duckdb")).CombinedOutput()
	require.NoError(t, err, "DataFusion plans: %s", out)
	var cases []tpchCase
	for i := 1; i <= 22; i++ {
		name := fmt.Sprintf("q%02d", i)
		sql, err := os.ReadFile(filepath.Join(qdir, name+".sql"))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(plans, name+".bin"))
		if msg, e := os.ReadFile(filepath.Join(plans, name+".err")); e == nil {
			t.Fatalf("DataFusion produced no plan for %s: %s", name, msg)
		}
		require.NoError(t, err)
		ipcBytes, err := os.ReadFile(filepath.Join(plans, name+".duckdb.arrow"))
		require.NoError(t, err)
		duck, err := itest.DecodeIPC(memory.NewGoAllocator(), ipcBytes)
		require.NoError(t, err)
		require.NotEmpty(t, duck.Rows, "DuckDB's answer to %s is empty: the comparison would prove little", name)
		cases = append(cases, tpchCase{name: name, sql: strings.TrimRight(strings.TrimSpace(string(sql)), ";"), plan: b, duck: duck})
	}
	return cases
}

// run starts an in-process statement with a one-minute limit, drains it and renders its rows.
func run(ctx context.Context, start func(context.Context) (fexec.Operator, error)) (itest.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	op, err := start(ctx)
	if err != nil {
		return itest.Result{}, err
	}
	defer op.Close()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for {
		b, err := op.Next(ctx)
		if err != nil {
			return itest.Result{}, err
		}
		if b == nil {
			break
		}
		batches = append(batches, b)
	}
	return itest.ToResult(op.Schema(), batches), nil
}

// executeSubstrait runs plan over Flight SQL (ExecuteSubstrait, then DoGet on every endpoint
// in order) and renders its rows.
func executeSubstrait(ctx context.Context, t *testing.T, cl *flightsql.Client, plan []byte) (itest.Result, error) {
	t.Helper()
	info, err := cl.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan, Version: "0.85.0"})
	if err != nil {
		return itest.Result{}, err
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var sc *arrow.Schema
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return itest.Result{}, err
		}
		sc = rdr.Schema()
		for rdr.Next() {
			b := rdr.RecordBatch()
			b.Retain()
			batches = append(batches, b)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return itest.Result{}, err
		}
	}
	return itest.ToResult(sc, batches), nil
}

// compare returns "" when got (from path) has want's rows (in any order), else the difference.
// Column names are not compared: DataFusion names some outputs differently from DuckDB.
func compare(path string, got itest.Result, err error, want itest.Result) string {
	if err != nil {
		return path + ": error: " + err.Error()
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%s: %d rows, DuckDB %d\ngot:\n%s\nDuckDB:\n%s", path, len(got.Rows), len(want.Rows), got, want)
	}
	g, w := got.Sorted(), want.Sorted()
	for i := range w.Rows {
		if strings.Join(g.Rows[i], "\x00") != strings.Join(w.Rows[i], "\x00") {
			return fmt.Sprintf("%s: row %d (sorted) %v, DuckDB %v\ngot:\n%s\nDuckDB:\n%s", path, i, g.Rows[i], w.Rows[i], got, want)
		}
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
