package commits_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
	"github.com/flightd/flightd/lanceformat/table"
)

// crashRows is the row count of one crash-test commit: large enough that writing its data
// file takes a while, so kills land in every phase of a commit.
const crashRows = 5000

// TestCrashSafety kills writer processes with SIGKILL at random points of many commits.
// After every kill the table opens at a committed version in flightd and in pylance: its
// versions are gapless and its rows are exactly the initial rows plus whole appended
// batches, every reported commit among them and at most one unreported commit per killed
// process. Cleanup then removes the debris: no unreferenced data or transaction file and no
// old manifest is left, and both readers still see the same rows.
func TestCrashSafety(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(*testing.T) target
	}{{"file", localTarget}, {"s3", s3Target}} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tc.target(t)
			runCrashRounds(t, tg)
		})
	}
}

func runCrashRounds(t *testing.T, tg target) {
	const rounds, procs, initRows = 6, 2, 10
	createTable(t, tg.store, initRows)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 4))
	reported := map[int64]bool{} // first ids of commits a writer reported
	killed := 0
	for r := range rounds {
		outs := make([]string, procs)
		var g errgroup.Group
		for p := range procs {
			first := int64(1_000_000 * (r*procs + p + 1))
			frac := rng.Float64()
			g.Go(func() error {
				var err error
				outs[p], err = killMidCommit(childCmd("crash", tg.store, first, 1000, crashRows), frac)
				return err
			})
		}
		require.NoError(t, g.Wait())
		for _, out := range outs {
			killed++
			for _, c := range parseCommits(t, out) {
				reported[c.ID] = true
			}
		}
		checkCommitted(t, tg, initRows, reported, killed)
	}
	t.Logf("%d kills, %d reported commits", killed, len(reported))
	checkCleanup(t, tg)
}

// killMidCommit starts writer c, waits for two commits to measure how long one takes, then
// kills it with SIGKILL after frac of that time into the next commit. It returns the
// writer's output.
func killMidCommit(c *exec.Cmd, frac float64) (string, error) {
	stdout, err := c.StdoutPipe()
	if err != nil {
		return "", err
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		return "", err
	}
	var out strings.Builder
	var stamps []time.Time
	sc := bufio.NewScanner(stdout)
	for len(stamps) < 2 && sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "COMMIT ") {
			stamps = append(stamps, time.Now())
		}
	}
	if len(stamps) == 2 {
		time.Sleep(time.Duration(frac * float64(stamps[1].Sub(stamps[0]))))
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	for sc.Scan() { // what it printed before dying, including lines the scanner buffered
		out.WriteString(sc.Text() + "\n")
	}
	err = c.Wait()
	if len(stamps) < 2 {
		return out.String(), fmt.Errorf("writer ended before two commits: %v: %s", err, stderr.String())
	}
	if err == nil {
		return out.String(), errors.New("writer was not killed")
	}
	return out.String(), nil
}

// checkCommitted checks that flightd and pylance open the table at the same committed
// version, that its versions are gapless and its rows whole batches.
func checkCommitted(t *testing.T, tg target, initRows int64, reported map[int64]bool, killed int) {
	t.Helper()
	v, ids := flightdView(t, tg.store)
	require.Equal(t, seq(0, initRows), ids[:initRows], "initial rows")
	present := map[int64]bool{}
	for i := initRows; i < int64(len(ids)); i += crashRows {
		first := ids[i]
		require.LessOrEqual(t, i+crashRows, int64(len(ids)), "a whole batch from %d", first)
		require.Equal(t, seq(first, crashRows), ids[i:i+crashRows], "a whole batch from %d, once", first)
		present[first] = true
	}
	for id := range reported {
		require.True(t, present[id], "reported commit %d is present", id)
	}
	require.LessOrEqual(t, len(present)-len(reported), killed, "at most one unreported commit per kill")
	require.Equal(t, uint64(1+len(present)), v, "one version per commit")

	ds := openDataset(t, tg.store)
	vs, err := ds.Versions(context.Background())
	require.NoError(t, err)
	got := make([]int64, len(vs))
	for i, vi := range vs {
		got[i] = int64(vi.Version)
	}
	require.Equal(t, seq(1, int64(v)), got, "versions are gapless")

	pv := pylanceView(t, tg.pyURI, tg.pyOpts)
	require.Equal(t, int64(v), pv.Version)
	require.Equal(t, ids, pv.IDs)
}

func openDataset(t *testing.T, storeURL string) *table.Dataset {
	t.Helper()
	store, err := blobstore.Open(context.Background(), storeURL)
	require.NoError(t, err)
	return table.OpenDataset(store, tableName+".lance")
}

// checkCleanup runs Cleanup and checks that only the latest version and its files remain.
func checkCleanup(t *testing.T, tg target) {
	t.Helper()
	ctx := context.Background()
	v, ids := flightdView(t, tg.store)
	ds := openDataset(t, tg.store)
	_, local := ds.Store().(lanceio.TempSweeper)
	var left []string
	if local {
		left = tempFiles(t, tg.store)
	}
	time.Sleep(10 * time.Millisecond) // every file is now strictly older than the cutoff
	st, err := ds.Cleanup(ctx, time.Now())
	require.NoError(t, err)
	t.Logf("cleanup: %+v", st)
	if local {
		require.Equal(t, len(left), st.TempFiles, "cleanup removes the temporary files kills left")
		require.Empty(t, tempFiles(t, tg.store))
	}
	m, err := ds.Latest(ctx)
	require.NoError(t, err)
	require.Equal(t, v, m.Version())
	want := []string{strings.TrimPrefix(m.Path, tableName+".lance/"), "_versions/latest_version_hint.json"}
	if tf := m.Proto.GetTransactionFile(); tf != "" {
		want = append(want, "_transactions/"+tf)
	}
	for _, f := range m.Fragments() {
		for _, df := range f.GetFiles() {
			want = append(want, "data/"+df.GetPath())
		}
	}
	objs, err := ds.Store().List(ctx, tableName+".lance/")
	require.NoError(t, err)
	var got []string
	for _, o := range objs {
		got = append(got, strings.TrimPrefix(o.Path, tableName+".lance/"))
	}
	slices.Sort(want)
	require.Equal(t, want, got, "only the latest version's files remain")
	v2, ids2 := flightdView(t, tg.store)
	require.Equal(t, v, v2)
	require.Equal(t, ids, ids2)
	pv := pylanceView(t, tg.pyURI, tg.pyOpts)
	require.Equal(t, int64(v), pv.Version)
	require.Equal(t, ids, pv.IDs)
}

// tempFiles lists FileStore temporary files under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var tmp []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".flightd-tmp-") {
			tmp = append(tmp, p)
		}
		return err
	}))
	return tmp
}
