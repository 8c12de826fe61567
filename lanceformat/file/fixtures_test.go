package file_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/file"
)

// fixtureIndex is the part of lanceformat/testdata/gen_file_fixtures.py's index.json the
// reader tests use.
type fixtureIndex struct {
	Cases []struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		Rows      int    `json:"rows"`
		Expected  string `json:"expected"`
		DataFiles []struct {
			Path        string `json:"path"`
			FileVersion string `json:"file_version"`
			NumRows     int    `json:"num_rows"`
		} `json:"data_files"`
	} `json:"cases"`
	Skipped []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"skipped"`
}

// TestReadFixtures reads every dataset of the shared fixture generator (helper D's
// gen_file_fixtures.py) and compares it with pylance's own reading.
func TestReadFixtures(t *testing.T) {
	t.Parallel()
	py := testutil.Python(t)
	if testing.Short() {
		t.Skip("fixture generation takes ~10 s; skipped in -short mode")
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	cmd := exec.Command(py, "../testdata/gen_file_fixtures.py", dir)
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	require.NoError(t, err)
	var idx fixtureIndex
	require.NoError(t, json.Unmarshal(raw, &idx))
	require.NotEmpty(t, idx.Cases)
	for _, s := range idx.Skipped {
		t.Logf("pylance could not write %s: %s", s.Name, s.Reason)
	}
	for _, c := range idx.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			require.Len(t, c.DataFiles, 1)
			df := c.DataFiles[0]
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			r, err := file.Open(ctx, rangeOnly{dirStore{dir}}, df.Path) // ReadRange only

			if errors.Is(err, file.ErrNotSupported) {
				t.Skipf("reader limitation: %v", err)
			}
			require.NoError(t, err)
			require.Equal(t, c.Version, r.Version().String())
			require.Equal(t, uint64(df.NumRows), r.NumRows())
			sc, want := readExpected(t, filepath.Join(dir, c.Expected), mem)
			defer releaseAll(want)
			require.Len(t, r.Schema().Fields, sc.NumFields())
			for i, f := range r.Schema().Fields {
				require.Equal(t, sc.Field(i).Name, f.Name)
				require.True(t, arrow.TypeEqual(sc.Field(i).Type, f.Type), "type %s vs %s", f.Type, sc.Field(i).Type)
				checkField(t, ctx, r, f.ID, want[i], mem)
			}
		})
	}
}
