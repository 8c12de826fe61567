package lancecat_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/testutil"
)

// pylanceWrite runs lance.write_dataset(pa.table({"x": range(lo, hi)}), uri, mode=mode).
func pylanceWrite(t *testing.T, uri, mode string, lo, hi int64) {
	t.Helper()
	const script = `import sys, lance, pyarrow as pa
uri, mode, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lance.write_dataset(pa.table({"x": pa.array(range(lo, hi), pa.int64())}), uri, mode=mode)`
	out, err := exec.Command(testutil.Python(t), "-c", script, uri, mode,
		strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)).CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestLatestSeesOtherWriters checks that the latest version a query resolves (one entry of
// _versions/ on a local store with pylance's V2 names) follows commits by another process:
// pylance appending, overwriting, and the table removed and written again from version 1
// with as many rows; time travel to older versions still finds them.
func TestLatestSeesOtherWriters(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dir := t.TempDir()
	uri := filepath.Join(dir, "t.lance")
	c := openCatalog(t, dir)
	// xs loads t at `at` and returns its version and sorted x values.
	xs := func(at catalog.VersionRef) (uint64, []int64) {
		tbl, out := tableXs(ctx, t, mem, c, at) // version_settled_test.go
		return tbl.Version(), out
	}
	pylanceWrite(t, uri, "create", 0, 10)
	v, got := xs(catalog.VersionRef{})
	require.Equal(t, uint64(1), v)
	require.Equal(t, rangeK(0, 10), got)

	for _, step := range []struct {
		name    string
		write   func()
		version uint64
		want    []int64
		v1      []int64 // version 1's rows afterwards
	}{
		{"append", func() { pylanceWrite(t, uri, "append", 10, 15) }, 2, rangeK(0, 15), rangeK(0, 10)},
		{"overwrite", func() { pylanceWrite(t, uri, "overwrite", 100, 103) }, 3, rangeK(100, 3), rangeK(0, 10)},
		{"removed and created again", func() {
			require.NoError(t, os.RemoveAll(uri))
			pylanceWrite(t, uri, "create", 20, 30)
		}, 1, rangeK(20, 10), rangeK(20, 10)},
		{"append after recreation", func() { pylanceWrite(t, uri, "append", 30, 31) }, 2, rangeK(20, 11), rangeK(20, 10)},
	} {
		t.Run(step.name, func(t *testing.T) {
			step.write()
			v, got := xs(catalog.VersionRef{})
			require.Equal(t, step.version, v)
			require.Equal(t, step.want, got)
			v, got = xs(catalog.VersionRef{Version: 1})
			require.Equal(t, uint64(1), v)
			require.Equal(t, step.v1, got)
		})
	}
	_, err := c.LoadTable(ctx, "t", catalog.VersionRef{Version: 3})
	require.ErrorIs(t, err, catalog.ErrNoSuchVersion, "the recreated table has no version 3")
}
