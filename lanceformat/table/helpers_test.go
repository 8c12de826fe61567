package table_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/lanceio/lanceiotest"
)

// dirStore is the lanceio test store over a local directory.
type dirStore = lanceiotest.DirStore

// fragExpect, dsExpect mirror the JSON printed by testdata/make_datasets.py.
type fragExpect struct {
	ID           uint64 `json:"id"`
	PhysicalRows uint64 `json:"physical_rows"`
	LiveRows     uint64 `json:"live_rows"`
}

type dsExpect struct {
	Latest    uint64       `json:"latest"`
	Versions  []uint64     `json:"versions"`
	Fragments []fragExpect `json:"fragments"`
	Rows      uint64       `json:"rows"`
	Format    string       `json:"format"`
}

var (
	pyOnce   sync.Once
	pyDir    string
	pyExpect map[string]dsExpect
	pyErr    error
)

// pylanceDatasets writes the test datasets once per test binary with pylance and returns
// their directory and the expectations. Tests skip when the venv is missing.
func pylanceDatasets(t *testing.T) (string, map[string]dsExpect) {
	t.Helper()
	pyOnce.Do(func() {
		py := testutil.Python(t)
		pyDir, pyErr = os.MkdirTemp("", "lance-table-test-")
		if pyErr != nil {
			return
		}
		cmd := exec.Command(py, "testdata/make_datasets.py", pyDir)
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				err = fmt.Errorf("%w: %s", err, ee.Stderr)
			}
			pyErr = err
			return
		}
		pyErr = json.Unmarshal(out, &pyExpect)
	})
	require.NoError(t, pyErr)
	return pyDir, pyExpect
}
