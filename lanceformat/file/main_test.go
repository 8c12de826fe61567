package file_test

import (
	"os"
	"testing"
)

// TestMain removes the files gen_files.py wrote (a few hundred MB per run) after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if genDir != "" {
		_ = os.RemoveAll(genDir)
	}
	os.Exit(code)
}
