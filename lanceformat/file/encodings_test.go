package file_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/memtest"
	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/lanceformat/file"
)

// encodingCases runs gen_encodings.py into a temporary directory of t and returns its
// datasets.
func encodingCases(t *testing.T) []genCase {
	t.Helper()
	py := testutil.Python(t)
	var stderr bytes.Buffer
	cmd := exec.Command(py, "testdata/gen_encodings.py", t.TempDir())
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var cases []genCase
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var c genCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		cases = append(cases, c)
	}
	require.Len(t, cases, 6)
	return cases
}

// TestReadOptInEncodings reads the pages pylance writes only when field metadata asks for
// them (2.0 Fsst, packed structs in every version) and compares every column, its
// sub-ranges and a take with pylance's own reading.
func TestReadOptInEncodings(t *testing.T) {
	t.Parallel()
	for _, c := range encodingCases(t) {
		t.Run(c.Name+"/"+c.Version, func(t *testing.T) {
			t.Parallel()
			mem := memtest.NewChecked(t)
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			r, err := file.Open(ctx, dirStore{c.Dir}, c.DataFile)
			require.NoError(t, err)
			require.Equal(t, c.Version, r.Version().String())
			require.Equal(t, uint64(c.Rows), r.NumRows())
			sc, want := readExpected(t, c.Expected, mem)
			defer releaseAll(want)
			require.Len(t, r.Schema().Fields, sc.NumFields())
			for i, f := range r.Schema().Fields {
				t.Run(f.Name, func(t *testing.T) {
					require.Equal(t, sc.Field(i).Name, f.Name)
					require.True(t, arrow.TypeEqual(sc.Field(i).Type, f.Type), "type %s vs %s", f.Type, sc.Field(i).Type)
					checkField(t, ctx, r, f.ID, want[i], mem)
				})
			}
		})
	}
}
