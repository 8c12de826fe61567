package goclients

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/integration/itest"
	"github.com/flightd/flightd/internal/testutil"
)

// shared is the read-only table root every test of the package queries (written once by
// pylance: writing it takes seconds); TestMain removes it.
var shared struct {
	once sync.Once
	root string
	err  error
}

// tables returns the shared root with itest.WriteTables' tables (t: 1000 rows, a int64 with
// NULLs, b utf8, c float64, two fragments). Tests that write use their own root.
func tables(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "flightd-goclients-")
		if err != nil {
			shared.err = err
			return
		}
		shared.root = dir
		_, shared.err = itest.ScriptOutput(testutil.RepoRoot(t), testutil.Python(t), "make_tables.py", dir)
	})
	require.NoError(t, shared.err)
	return shared.root
}

// oracle runs every query in DuckDB over pylance's reading of root, in one Python process, and
// returns the results by query text.
func oracle(t *testing.T, root string, sqls ...string) map[string]itest.Result {
	t.Helper()
	in, err := json.Marshal(sqls)
	require.NoError(t, err)
	cmd := exec.Command(testutil.Python(t), "testdata/oracle_many.py", root)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	res := map[string]itest.Result{}
	for _, sql := range sqls {
		require.GreaterOrEqual(t, len(out), 8, "oracle output ends before %q", sql)
		n := binary.LittleEndian.Uint64(out)
		require.GreaterOrEqual(t, uint64(len(out)-8), n, "oracle output ends inside %q", sql)
		r, err := itest.DecodeIPC(memory.NewGoAllocator(), out[8:8+n])
		require.NoError(t, err, "oracle result of %q", sql)
		res[sql] = r
		out = out[8+n:]
	}
	require.Empty(t, out, "oracle wrote more results than queries")
	return res
}
