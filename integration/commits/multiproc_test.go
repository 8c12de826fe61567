package commits_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore/s3server"
)

// envQuick selects smaller counts (8 processes × 12 appends, pylance 12 appends) for quick
// local runs. The default is issue 4's full counts, 8 processes × 50 appends and pylance 50
// appends: about 15 s on the file store and 40 s on versitygw on a 2-core machine under
// -race (the S3 commit path lists only the newest versions and reads the other writers'
// transactions concurrently; see lanceformat/table.Commit).
const envQuick = "FLIGHTD_COMMITS_QUICK"

// counts returns the writer processes, appends per process and pylance appends.
func counts() (procs, appends, pyAppends int64) {
	if os.Getenv(envQuick) != "" {
		return 8, 12, 12
	}
	return 8, 50, 50
}

// target is where a multi-process test writes: a blobstore URL for flightd's writers, a
// dataset URI and storage options for pylance.
type target struct {
	store  string
	pyURI  string
	pyOpts map[string]string
}

func localTarget(t *testing.T) target {
	dir := t.TempDir()
	return target{store: dir, pyURI: dir + "/" + tableName + ".lance"}
}

func s3Target(t *testing.T) target {
	s := s3server.Start(t)
	return target{store: s.URL(), pyURI: s.DatasetURI(tableName + ".lance"), pyOpts: s.StorageOptions()}
}

// TestMultiProcessAppends runs 8 writer processes and pylance appending to one table at the
// same time: no commit is lost or duplicated, versions are gapless, every appended row is
// present, in flightd's and in pylance's view.
func TestMultiProcessAppends(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(*testing.T) target
	}{{"file", localTarget}, {"s3", s3Target}} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tc.target(t)
			runMultiProcess(t, tg)
		})
	}
}

func runMultiProcess(t *testing.T, tg target) {
	procs, appends, pyAppends := counts()
	const initRows = 10
	createTable(t, tg.store, initRows)
	start := time.Now()
	cmds := make([]*exec.Cmd, 0, procs+1)
	outs := make([]*strings.Builder, 0, procs+1)
	for p := range procs {
		cmds = append(cmds, childCmd("go", tg.store, 1000*(p+1), appends, 1))
	}
	const pyFirst = 100_000
	cmds = append(cmds, pyAppendCmd(t, tg.pyURI, pyFirst, pyAppends, tg.pyOpts))
	for _, c := range cmds {
		out := &strings.Builder{}
		c.Stdout, c.Stderr = out, out
		outs = append(outs, out)
		require.NoError(t, c.Start())
	}
	var commits []commitLine
	for i, c := range cmds {
		require.NoError(t, c.Wait(), "writer %d: %s", i, outs[i].String())
		commits = append(commits, parseCommits(t, outs[i].String())...)
	}
	t.Logf("%d processes x %d appends + pylance x %d: %v", procs, appends, pyAppends, time.Since(start))

	total := procs*appends + pyAppends
	require.Len(t, commits, int(total), "every writer reports every commit")
	want := seq(0, initRows)
	var versions []int64
	for _, c := range commits {
		want = append(want, c.ID)
		versions = append(versions, c.Version)
	}
	slices.Sort(want)
	slices.Sort(versions)
	require.Equal(t, seq(2, total), versions, "each version 2..%d committed by exactly one writer", total+1)

	v, ids := flightdView(t, tg.store)
	require.Equal(t, uint64(total+1), v)
	require.Equal(t, want, ids, "flightd sees every appended row once")

	pv := pylanceView(t, tg.pyURI, tg.pyOpts)
	require.Equal(t, total+1, pv.Version)
	require.Equal(t, seq(1, total+1), pv.Versions, "versions are gapless")
	require.Equal(t, want, pv.IDs, "pylance sees every appended row once")
}
