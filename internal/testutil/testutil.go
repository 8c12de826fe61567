// Package testutil holds helpers shared by flightd's tests: finding the module root, the
// pinned Python peers (pylance, pyarrow, DuckDB) and the shared Lance fixtures.
//
// The Python peers live in the virtualenv `make venv` (and so `make test`) builds. Tests that
// need them fail, not skip, when it is missing: CI always has it, and a skipped differential
// test would hide a regression.
package testutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	rootOnce sync.Once
	root     string
)

// RepoRoot returns the module root: the nearest directory above the working directory that
// holds go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return
			}
			dir = parent
		}
	})
	if root == "" {
		t.Fatal("testutil: go.mod not found above the working directory")
	}
	return root
}

// Python returns the interpreter of the pinned virtualenv: $FLIGHTD_PYTHON, or
// <root>/.venv/bin/python. It fails the test when neither exists.
func Python(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("FLIGHTD_PYTHON"); p != "" {
		return p
	}
	p := filepath.Join(RepoRoot(t), ".venv", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the pinned Python peers are missing (%s): run `make venv` (make test does it)", p)
	}
	return p
}

// SharedFixtures returns the directory of the Lance datasets written by old Lance versions,
// ../shared/fixtures/lance-test-data next to the repository. They are read in place, never
// copied. When they are absent the test is skipped with a message that says so.
func SharedFixtures(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "..", "shared", "fixtures", "lance-test-data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared Lance fixtures are absent (%s); CI always has them", dir)
	}
	return dir
}
