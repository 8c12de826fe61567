package lancecat_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/testutil"
)

// opsVersion is what pylance reads at one version.
type opsVersion struct {
	Rows   [][]any `json:"rows"`
	Fields [][]any `json:"fields"` // [name, field id], pre-order
}

type opsWritten struct {
	Versions map[string]opsVersion `json:"versions"`
	AsOf     [][2]int64            `json:"asof"` // [unix µs, pylance's version as of then (0: none)]
}

type opsCleaned struct {
	Versions []uint64          `json:"versions"`
	Tags     map[string]uint64 `json:"tags"`
}

func runOps(t *testing.T, mode, dir string, out any) {
	cmd := exec.Command(testutil.Python(t), "testdata/make_ops.py", mode, dir)
	b, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("make_ops.py %s: %v: %s", mode, err, ee.Stderr)
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out))
}

// preOrderFields is the table's flattened schema as [name, field id] pairs, as pylance's.
func preOrderFields(t *testing.T, tbl catalog.Table) [][]any {
	var out [][]any
	for _, f := range tbl.(*lancecat.Table).Manifest().Fields() {
		out = append(out, []any{f.GetName(), float64(f.GetId())})
	}
	return out
}

// TestPylanceOperationsEveryVersion runs every pylance operation (create with several
// fragments, append, delete, update, add_columns, merge, rename, drop, tag, restore,
// compaction, cleanup) on 2.0 (V1 names), 2.1 and 2.2 datasets and checks that flightd reads
// every version as pylance does (rows, column names, field ids), that time travel by
// timestamp and tag picks pylance's versions, and that after pylance's cleanup the removed
// versions are gone and the kept ones still read the same.
func TestPylanceOperationsEveryVersion(t *testing.T) {
	dir := t.TempDir()
	var written map[string]opsWritten
	runOps(t, "write", dir, &written)
	c := openCatalog(t, dir)
	ctx := context.Background()
	names := []string{"ops20", "ops21", "ops22"}
	for _, name := range names {
		w := written[name]
		require.GreaterOrEqual(t, len(w.Versions), 11, name)
		for vs, want := range w.Versions {
			v, err := strconv.ParseUint(vs, 10, 64)
			require.NoError(t, err)
			t.Run(name+"@"+vs, func(t *testing.T) {
				tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Version: v})
				require.NoError(t, err)
				require.Equal(t, want.Fields, preOrderFields(t, tbl))
				require.Equal(t, want.Rows, jsonRows(t, tbl))
			})
		}
		for _, a := range w.AsOf {
			tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Timestamp: time.UnixMicro(a[0])})
			if a[1] == 0 { // before the first version (pylance refuses too)
				require.ErrorIs(t, err, catalog.ErrNoSuchVersion)
				continue
			}
			require.NoError(t, err, "%s as of %d", name, a[0])
			require.Equal(t, uint64(a[1]), tbl.Version(), "%s as of %s", name, time.UnixMicro(a[0]).UTC())
		}
		tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Tag: "mid"})
		require.NoError(t, err)
		require.Equal(t, uint64(5), tbl.Version())
	}

	var cleaned map[string]opsCleaned
	runOps(t, "cleanup", dir, &cleaned)
	c = openCatalog(t, dir) // a fresh catalog: no cached manifests
	for _, name := range names {
		kept := cleaned[name]
		require.Equal(t, map[string]uint64{"mid": 5}, kept.Tags)
		for vs, want := range written[name].Versions {
			v, err := strconv.ParseUint(vs, 10, 64)
			require.NoError(t, err)
			tbl, err := c.LoadTable(ctx, name, catalog.VersionRef{Version: v})
			if !slices.Contains(kept.Versions, v) {
				require.ErrorIs(t, err, catalog.ErrNoSuchVersion, "%s@%d was cleaned up", name, v)
				continue
			}
			require.NoError(t, err)
			require.Equal(t, want.Rows, jsonRows(t, tbl), "%s@%d after cleanup", name, v)
		}
	}
}
