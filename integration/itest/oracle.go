package itest

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/internal/testutil"
)

// Oracle runs sql in DuckDB over pylance's reading of the tables under root.
func Oracle(t testing.TB, root, sql string) Result {
	t.Helper()
	res, err := DecodeIPC(memory.NewGoAllocator(), RunScript(t, "oracle.py", root, sql))
	require.NoError(t, err)
	return res
}

// Oracles runs every query in DuckDB in the background (each run loads pylance and DuckDB,
// which takes seconds) and returns a function that waits for the results.
func Oracles(t *testing.T, root string, sqls []string) func() map[string]Result {
	t.Helper()
	repo, py := testutil.RepoRoot(t), testutil.Python(t)
	results := make([]Result, len(sqls))
	var g errgroup.Group
	g.SetLimit(4)
	for i, sql := range sqls {
		g.Go(func() error {
			out, err := ScriptOutput(repo, py, "oracle.py", root, sql)
			if err != nil {
				return err
			}
			if results[i], err = DecodeIPC(memory.NewGoAllocator(), out); err != nil {
				return fmt.Errorf("oracle result of %q: %w", sql, err)
			}
			return nil
		})
	}
	t.Cleanup(func() { _ = g.Wait() }) // no Python left running if the test stops early
	return func() map[string]Result {
		t.Helper()
		require.NoError(t, g.Wait())
		m := map[string]Result{}
		for i, sql := range sqls {
			m[sql] = results[i]
		}
		return m
	}
}
