package sqllogic

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/flightsrv"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/slt"
	"github.com/flightd/flightd/internal/testutil"
)

var (
	rewrite     = flag.Bool("rewrite", false, "regenerate the expected results of the .test files from DuckDB")
	updateKnown = flag.Bool("update-known", false, "rewrite known_failures/<run>.txt from this run's failures")
	showKnown   = flag.Bool("show-known", false, "log the full message of every failing record, known or not")
	withConfigs = flag.Bool("slt.configs", false, "also run TestSLTConfigs (the whole-suite configurations)")
	live        = flag.Bool("differential", false, "compare flightd with live DuckDB answers instead of the files' expected blocks")
)

const (
	corpusDir   = "testdata"
	knownDir    = "known_failures"
	oracleFile  = "duckdb_oracle.py"
	fileTimeout = 2 * time.Minute
)

// runConfig is one way of running the whole corpus in flightd.
type runConfig struct {
	name         string
	env          exec.Env
	morselRows   int64 // 0: memcat's default
	optimizerOff bool
	flight       bool
	lance        bool // tables are Lance datasets written by pylance, read through catalog/lancecat
}

// configs are the whole-suite configurations of TestSLTConfigs: what correct code must not
// care about (batch sizes, parallelism and morsel boundaries, the optimizer).
var configs = []runConfig{
	{name: "batch_size_1", env: exec.Env{BatchSize: 1}},
	{name: "batch_size_3", env: exec.Env{BatchSize: 3}, morselRows: 4},
	{name: "parallelism_1", env: exec.Env{Parallelism: 1}, morselRows: 2},
	{name: "parallelism_4", env: exec.Env{Parallelism: 4}, morselRows: 3},
	{name: "optimizer_off", optimizerOff: true},
}

// python returns the pinned virtualenv's interpreter, or skips the test without it.
// corpus lists the .test files under testdata, as slash-separated relative names.
func corpus(t *testing.T) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".test") {
			rel, err := filepath.Rel(corpusDir, path)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, names, "no .test files under %s", corpusDir)
	slices.Sort(names)
	return names
}

// oraclePool keeps DuckDB processes alive across files: starting Python with DuckDB and
// pyarrow costs about a second, resetting the database costs nothing.
type oraclePool struct {
	mu   sync.Mutex
	idle []*Oracle
	all  []*Oracle
}

var pool oraclePool

func (p *oraclePool) get(t *testing.T, mem memory.Allocator, lanceRoot string) *Oracle {
	t.Helper()
	py := testutil.Python(t)
	p.mu.Lock()
	var o *Oracle
	if n := len(p.idle); n > 0 {
		o, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if o == nil {
		var err error
		o, err = StartOracle(py, oracleFile, "", mem)
		require.NoError(t, err)
		p.mu.Lock()
		p.all = append(p.all, o)
		p.mu.Unlock()
	}
	if err := o.Reset(context.Background(), mem, lanceRoot); err != nil {
		p.put(o)
		require.NoError(t, err)
	}
	return o
}

func (p *oraclePool) put(o *Oracle) {
	p.mu.Lock()
	p.idle = append(p.idle, o)
	p.mu.Unlock()
}

// close ends every oracle process; TestMain calls it before checking for leaks.
func (p *oraclePool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, o := range p.all {
		if err := o.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	p.all, p.idle = nil, nil
	if len(errs) > 0 {
		return fmt.Errorf("close oracles: %v", errs)
	}
	return nil
}

// runSuite runs every corpus file in flightd under cfg and checks the outcomes against
// known_failures/<cfg.name>.txt.
func runSuite(t *testing.T, cfg runConfig) {
	knownPath := filepath.Join(knownDir, cfg.name+".txt")
	known, err := slt.LoadKnownFailures(knownPath)
	require.NoError(t, err)
	var mu sync.Mutex
	counts := map[slt.Status]int{}
	t.Cleanup(func() {
		t.Logf("%s: %d passed, %d failed (known), %d skipped", cfg.name, counts[slt.Pass], counts[slt.Fail], counts[slt.Skipped])
		if *updateKnown && !t.Failed() {
			require.NoError(t, os.MkdirAll(knownDir, 0o755))
			require.NoError(t, known.Write(knownPath, knownHeader(cfg.name)))
		}
	})
	for _, name := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outcomes := runFile(t, cfg, name)
			mu.Lock()
			defer mu.Unlock()
			for _, o := range outcomes {
				counts[o.Status]++
				if *showKnown && o.Status == slt.Fail {
					t.Logf("%s: %s\n%s", o.Record.Pos(name), o.Record.SQL, o.Message)
				}
			}
			if *updateKnown {
				known.Record(name, outcomes)
				return
			}
			unexpected, fixed, stale := known.Compare(name, outcomes)
			for _, pos := range stale {
				t.Errorf("%s is listed in %s but is no record of the file: regenerate the list with -update-known", pos, knownPath)
			}
			for _, o := range unexpected {
				t.Errorf("%s: %s\n%s\n(if this is expected for now, run with -update-known)", o.Record.Pos(name), o.Record.SQL, o.Message)
			}
			for _, o := range fixed {
				t.Errorf("%s now passes: remove it from %s (or run with -update-known)\n%s", o.Record.Pos(name), knownPath, o.Record.SQL)
			}
		})
	}
}

func knownHeader(run string) string {
	return fmt.Sprintf(`Records of integration/sqllogic/testdata that flightd fails in the %q run, with how
they fail. The test fails when a record fails that is not listed here, and when a listed
record passes: this list only shrinks. Regenerate with
  go test ./integration/sqllogic -run <Test> -update-known`, run)
}

// runFile runs one file in a fresh flightd whose every Arrow allocation is checked.
func runFile(t *testing.T, cfg runConfig, name string) []slt.Outcome {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := slt.ParseFile(filepath.Join(corpusDir, filepath.FromSlash(name)), name)
	require.NoError(t, err)
	if *live {
		liveExpected(t, f, mem)
	}
	var (
		store Store
		cat   catalog.Catalog
		root  string
	)
	if cfg.lance {
		root = t.TempDir()
		bs, err := blobstore.Open(context.Background(), "file://"+filepath.ToSlash(root))
		require.NoError(t, err)
		store, cat = nopStore{}, lancecat.New(bs)
	} else {
		ms := NewMemStore(cfg.morselRows)
		defer ms.Release()
		store, cat = ms, ms
	}
	oracle := pool.get(t, mem, root)
	defer pool.put(oracle)

	env := cfg.env
	env.Mem = mem
	run, stop := flightdRunner(t, cfg, cat, env, mem)
	defer stop()
	r := &slt.Runner{
		Engine: &Engine{Oracle: oracle, Store: store, Run: recovering(run)},
		Tags:   []string{"flightd", "config " + cfg.name},
	}
	ctx, cancel := context.WithTimeout(context.Background(), fileTimeout)
	defer cancel()
	outcomes := r.Run(ctx, f)
	require.NoError(t, ctx.Err(), "%s did not finish in %s", name, fileTimeout)
	return outcomes
}

// flightdRunner builds the QueryFunc of a configuration; stop ends what it started.
func flightdRunner(t *testing.T, cfg runConfig, cat catalog.Catalog, env exec.Env, mem memory.Allocator) (QueryFunc, func()) {
	if cfg.optimizerOff {
		return Direct(cat, env, false), func() {}
	}
	srv, err := flightsrv.New(flightsrv.Config{Catalog: cat, Mem: mem, Exec: env})
	require.NoError(t, err)
	if !cfg.flight {
		return InProcess(srv), func() {}
	}
	fs, addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	cl, err := flightsql.NewClient(addr.String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fs.Shutdown()
		require.NoError(t, err)
	}
	cl.Alloc = mem
	return OverFlight(cl, mem), func() {
		require.NoError(t, cl.Close())
		fs.Shutdown()
	}
}

// nopStore ignores changes: in the Lance run the oracle writes the datasets itself.
type nopStore struct{}

func (nopStore) Apply(context.Context, Change) error { return nil }

// recovering turns a panic in flightd into a failed record, so that one crashing query of a
// specification file does not take the whole suite down.
func recovering(run QueryFunc) QueryFunc {
	return func(ctx context.Context, sql string) (types string, rows [][]string, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v\n%s", p, goroutineStack())
			}
		}()
		return run(ctx, sql)
	}
}

func goroutineStack() string {
	buf := make([]byte, 8<<10)
	return string(buf[:runtime.Stack(buf, false)])
}

// liveExpected replaces the expected blocks of f's queries with DuckDB's answers (the
// -differential mode). Line numbers do not move, so the known-failure lists still apply.
func liveExpected(t *testing.T, f *slt.File, mem memory.Allocator) {
	oracle := pool.get(t, mem, "")
	defer pool.put(oracle)
	r := &slt.Runner{Engine: oracle, Tags: []string{"duckdb"}, IgnoreErrorPatterns: true}
	text, err := r.Rewrite(context.Background(), f)
	require.NoError(t, err)
	g, err := slt.Parse(f.Name, text)
	require.NoError(t, err)
	require.Len(t, g.Records, len(f.Records))
	for i, rec := range f.Records {
		rec.Types, rec.Expected, rec.HasResult = g.Records[i].Types, g.Records[i].Expected, g.Records[i].HasResult
	}
}

// rewriteFile regenerates the expected blocks of one file from DuckDB.
func rewriteFile(t *testing.T, name string) {
	path := filepath.Join(corpusDir, filepath.FromSlash(name))
	f, err := slt.ParseFile(path, name)
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	oracle := pool.get(t, mem, "")
	defer pool.put(oracle)
	r := &slt.Runner{Engine: oracle, Tags: []string{"duckdb"}, IgnoreErrorPatterns: true}
	text, err := r.Rewrite(context.Background(), f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}
