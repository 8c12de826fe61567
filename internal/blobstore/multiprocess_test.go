package blobstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/blobstore"
	"github.com/flightd/flightd/lanceformat/lanceio"
)

// childEnv makes the test binary act as one competing writer process.
const childEnv = "BLOBSTORE_TEST_CHILD_DIR"

// TestFileStorePutIfAbsentAcrossProcesses runs several processes that each try to create
// the same keys; exactly one must win each key.
func TestFileStorePutIfAbsentAcrossProcesses(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		runChild(t, dir)
		return
	}
	const procs, keys = 4, 200
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestFileStorePutIfAbsentAcrossProcesses$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), childEnv+"="+dir)
		outs[i] = &strings.Builder{}
		cmds[i].Stdout = outs[i]
		cmds[i].Stderr = os.Stderr
		require.NoError(t, cmds[i].Start())
	}
	wins := 0
	for i, c := range cmds {
		require.NoError(t, c.Wait())
		wins += strings.Count(outs[i].String(), "WIN ")
	}
	require.Equal(t, keys, wins)
	entries, err := os.ReadDir(dir + "/_versions")
	require.NoError(t, err)
	require.Len(t, entries, keys, "one file per key, no temporary files left")
}

func runChild(t *testing.T, dir string) {
	s, err := blobstore.NewFileStore(dir)
	require.NoError(t, err)
	for k := range 200 {
		err := s.PutIfAbsent(context.Background(), fmt.Sprintf("_versions/%d.manifest", k), []byte("x"))
		switch {
		case err == nil:
			fmt.Printf("WIN %d\n", k)
		case errors.Is(err, lanceio.ErrAlreadyExists):
		default:
			t.Fatalf("put %d: %v", k, err)
		}
	}
}
