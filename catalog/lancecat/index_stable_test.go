package lancecat_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
)

// stableCases are the conditions asked of st.lance (testdata/index_stable.py), and whether
// the index must be used at every version.
var stableCases = []struct {
	cond    string
	indexed bool
}{
	{"u = 2500", true},
	{"u = 5", true},      // updated to 100005 at the third version: moves to a new fragment
	{"u = 100005", true}, // the updated row: found by scanning the uncovered fragment
	{"u < 30", true},
	{"u BETWEEN 490 AND 530", true}, // 500..520 deleted later
	{"u >= 4400", true},             // appended after the index
	{"u IN (7, 97, 1940, 3977)", true},
	{"s = 'v003'", true},
	{"s = 'v999'", true}, // a value written after the index (updates)
	{"s IS NULL AND u < 100", true},
	{"s = 'v003' OR u = 194", true},
	{"u > 3990 AND s = 'v011'", true},
}

// stableOracle is index_stable.py's answer.
type stableOracle struct {
	Versions map[string]map[string]struct {
		Lance        []int64 `json:"lance"`
		LanceNoIndex []int64 `json:"lance_noindex"`
		Plan         string  `json:"plan"`
	} `json:"versions"`
	Indexed int `json:"indexed"`
}

// Indexes of a table with stable row ids (pylance-built BTREE and BITMAP) are used, their
// row ids mapped to addresses through the fragments' row id sequences, at the version they
// were built and after updates (rows keep their ids in new fragments), deletes, appends and
// compaction (rows keep their ids in rewritten fragments): results equal pylance's with and
// without its indexes, and a scan without the index.
func TestIndexStableRowIDs(t *testing.T) {
	dir := t.TempDir()
	conds := make([]string, len(stableCases))
	for i, c := range stableCases {
		conds[i] = c.cond
	}
	in, err := json.Marshal(map[string]any{"conds": conds})
	require.NoError(t, err)
	cmd := exec.Command(testutil.Python(t), "testdata/index_stable.py", dir)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("index_stable.py: %v: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	var want stableOracle
	require.NoError(t, json.Unmarshal(out, &want))
	require.GreaterOrEqual(t, len(want.Versions), 6)

	cat := openCatalog(t, dir)
	for v, answers := range want.Versions {
		for _, c := range stableCases {
			t.Run(v+"/"+c.cond, func(t *testing.T) {
				ctx := context.Background()
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				w := answers[c.cond]
				require.Equal(t, w.LanceNoIndex, w.Lance, "pylance with and without its index")
				sql := "SELECT u FROM st AT (VERSION => " + v + ") WHERE " + c.cond + " ORDER BY u"
				node, got := query(ctx, t, cat, mem, sql)
				require.Equal(t, w.Lance, got)
				require.Equal(t, w.Lance, run(ctx, t, withoutIndex(node), mem), "plain scan")
				if c.indexed {
					scan := findScan(node)
					require.NotNil(t, scan.Index, "no index used at version %s for %s", v, c.cond)
				}
			})
		}
	}
}
