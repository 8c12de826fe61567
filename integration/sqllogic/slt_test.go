package sqllogic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/flightd/flightd/internal/slt"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := pool.close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// TestSLT runs the corpus in-process through flightsrv.(*Server).Execute. With -rewrite it
// instead regenerates every file's expected results from DuckDB.
func TestSLT(t *testing.T) {
	if *rewrite {
		for _, name := range corpus(t) {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rewriteFile(t, name)
			})
		}
		return
	}
	runSuite(t, runConfig{name: "inprocess"})
}

// TestSLTDuckDB checks the corpus against DuckDB itself: every committed expected block must
// still be DuckDB's answer, so no result can have been typed or edited by hand.
func TestSLTDuckDB(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite regenerates the files instead")
	}
	for _, name := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			f, err := slt.ParseFile(filepath.Join(corpusDir, filepath.FromSlash(name)), name)
			require.NoError(t, err)
			oracle := pool.get(t, mem, "")
			defer pool.put(oracle)
			r := &slt.Runner{Engine: oracle, Tags: []string{"duckdb"}, IgnoreErrorPatterns: true}
			for _, o := range r.Run(context.Background(), f) {
				if o.Status == slt.Fail {
					t.Errorf("%s: DuckDB disagrees with the file (run -rewrite and review the diff): %s\n%s", o.Record.Pos(name), o.Record.SQL, o.Message)
				}
			}
		})
	}
}

// TestSLTConfigs re-runs the corpus under each whole-suite configuration. It is opt-in
// (five more runs of the corpus do not fit the package's time budget under -race); run it
// without -race: go test ./integration/sqllogic -run TestSLTConfigs -slt.configs.
func TestSLTConfigs(t *testing.T) {
	if *rewrite {
		t.Skip("-rewrite regenerates the files instead")
	}
	if !*withConfigs && os.Getenv("FLIGHTD_SLT_CONFIGS") == "" {
		t.Skip("whole-suite configurations run with -slt.configs or FLIGHTD_SLT_CONFIGS=1 (make slt-configs)")
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) { runSuite(t, cfg) })
	}
}
