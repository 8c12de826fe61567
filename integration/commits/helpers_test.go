package commits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/lancecat"
	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/internal/testutil"
)

// Environment of a writer child process (the test binary re-executed).
const (
	envMode  = "FLIGHTD_COMMITS_CHILD" // the writer's name: its rows are named "<mode>-<id>"
	envStore = "FLIGHTD_COMMITS_STORE" // blobstore.Open URL
	envFirst = "FLIGHTD_COMMITS_FIRST" // first id
	envCount = "FLIGHTD_COMMITS_COUNT" // number of commits
	envRows  = "FLIGHTD_COMMITS_ROWS"  // rows per commit
)

// tableName is the table every test writes (directory t.lance).
const tableName = "t"

var idNameSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// TestMain turns the binary into a writer process when envMode is set.
func TestMain(m *testing.M) {
	if mode := os.Getenv(envMode); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func envInt(name string) (int64, error) {
	v, err := strconv.ParseInt(os.Getenv(name), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// runChild appends count commits of rows rows each, ids first, first+1, ...; each landed
// commit prints "COMMIT <first id> <version>". A failed commit did not land and is retried.
func runChild(mode string) error {
	ctx := context.Background()
	first, err := envInt(envFirst)
	if err != nil {
		return err
	}
	count, err := envInt(envCount)
	if err != nil {
		return err
	}
	rows, err := envInt(envRows)
	if err != nil {
		return err
	}
	store, err := blobstore.Open(ctx, os.Getenv(envStore))
	if err != nil {
		return err
	}
	cat := lancecat.New(store)
	mem := memory.NewGoAllocator()
	for i := range count {
		id := first + i*rows
		b := idNameBatch(mem, id, rows, mode)
		var v uint64
		for attempt := 0; ; attempt++ {
			v, err = cat.Append(ctx, tableName, []arrow.RecordBatch{b})
			if err == nil {
				break
			}
			if attempt == 50 {
				b.Release()
				return fmt.Errorf("append %d: %w", id, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.Release()
		fmt.Printf("COMMIT %d %d\n", id, v)
	}
	return nil
}

// idNameBatch returns rows rows with ids first.. and names "<prefix>-<id>".
func idNameBatch(mem memory.Allocator, first, rows int64, prefix string) arrow.RecordBatch {
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	for id := first; id < first+rows; id++ {
		ib.Append(id)
		sb.Append(prefix + "-" + strconv.FormatInt(id, 10))
	}
	ic, sc := ib.NewArray(), sb.NewArray()
	defer ic.Release()
	defer sc.Release()
	return array.NewRecordBatch(idNameSchema, []arrow.Array{ic, sc}, rows)
}

// createTable creates the table with rows ids 0..rows-1 (version 1).
func createTable(t *testing.T, storeURL string, rows int64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	store, err := blobstore.Open(ctx, storeURL)
	require.NoError(t, err)
	b := idNameBatch(mem, 0, rows, "init")
	defer b.Release()
	v, err := lancecat.New(store).CreateTable(ctx, tableName, idNameSchema, []arrow.RecordBatch{b}, catalog.CreateNew)
	require.NoError(t, err)
	require.Equal(t, uint64(1), v)
}

// childCmd returns a writer process appending count commits of rows rows from id first.
func childCmd(mode, storeURL string, first, count, rows int64) *exec.Cmd {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), envMode+"="+mode, envStore+"="+storeURL,
		envFirst+"="+strconv.FormatInt(first, 10), envCount+"="+strconv.FormatInt(count, 10),
		envRows+"="+strconv.FormatInt(rows, 10))
	return c
}

// commitLine is one "COMMIT <id> <version>" line of a writer's output.
type commitLine struct{ ID, Version int64 }

func parseCommits(t *testing.T, out string) []commitLine {
	t.Helper()
	var cs []commitLine
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "COMMIT" {
			continue
		}
		id, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err)
		v, err := strconv.ParseInt(f[2], 10, 64)
		require.NoError(t, err)
		cs = append(cs, commitLine{id, v})
	}
	return cs
}

// flightdView reads the latest version of the table through the catalog: its version and
// sorted ids.
func flightdView(t *testing.T, storeURL string) (uint64, []int64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	store, err := blobstore.Open(ctx, storeURL)
	require.NoError(t, err)
	tbl, err := lancecat.New(store).LoadTable(ctx, tableName, catalog.VersionRef{})
	require.NoError(t, err)
	req := catalog.ScanRequest{Columns: []int{0}, Limit: -1}
	morsels, err := tbl.Morsels(ctx, req)
	require.NoError(t, err)
	var ids []int64
	for _, m := range morsels {
		rr, err := tbl.Scan(ctx, req, m, mem)
		require.NoError(t, err)
		for {
			b, err := rr.Next(ctx)
			require.NoError(t, err)
			if b == nil {
				break
			}
			ids = append(ids, b.Column(0).(*array.Int64).Int64Values()...)
			b.Release()
		}
		require.NoError(t, rr.Close())
	}
	slices.Sort(ids)
	return tbl.Version(), ids
}

// pyView is what pylance sees of a dataset.
type pyView struct {
	Version  int64   `json:"version"`
	Versions []int64 `json:"versions"`
	IDs      []int64 `json:"ids"`
}

const pyViewScript = `
import json, sys, lance
opts = json.loads(sys.argv[2]) if len(sys.argv) > 2 else None
ds = lance.dataset(sys.argv[1], storage_options=opts)
ids = sorted(ds.to_table(columns=["id"]).column("id").to_pylist())
print(json.dumps({"version": ds.version, "versions": [v["version"] for v in ds.versions()], "ids": ids}))
`

// pylanceView opens the dataset at uri with pylance and reads its latest version.
func pylanceView(t *testing.T, uri string, opts map[string]string) pyView {
	t.Helper()
	args := []string{"-c", pyViewScript, uri}
	if opts != nil {
		j, err := json.Marshal(opts)
		require.NoError(t, err)
		args = append(args, string(j))
	}
	out, err := exec.Command(testutil.Python(t), args...).Output()
	require.NoError(t, err, "pylance view: %s", stderrOf(err))
	var v pyView
	require.NoError(t, json.Unmarshal(out, &v))
	return v
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// pyAppendCmd returns a pylance process appending count single-row commits from id first.
func pyAppendCmd(t *testing.T, uri string, first, count int64, opts map[string]string) *exec.Cmd {
	t.Helper()
	args := []string{filepath.Join("testdata", "pyappend.py"), uri, strconv.FormatInt(first, 10), strconv.FormatInt(count, 10)}
	if opts != nil {
		j, err := json.Marshal(opts)
		require.NoError(t, err)
		args = append(args, string(j))
	}
	return exec.Command(testutil.Python(t), args...)
}

// seq returns n ids from first.
func seq(first, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = first + int64(i)
	}
	return out
}
