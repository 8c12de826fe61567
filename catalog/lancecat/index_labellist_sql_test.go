package lancecat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/testutil"
	"github.com/flightd/flightd/planner"
)

// labelSQLCases are LABEL_LIST conditions written in SQL (DuckDB's list functions) with
// the same condition in pylance's filter syntax, and whether EXPLAIN must show l_idx
// (useIndex), must not (noIndex), or either (a cost decision: a label in a fifth of the
// rows is cheaper to scan for).
var labelSQLCases = []struct {
	sql, lance string
	index      int
}{
	{"array_has_any(l, ['a1'])", "array_has_any(l, make_array('a1'))", eitherIndex},
	{"list_has_any(l, ['a1', 'b2'])", "array_has_any(l, make_array('a1', 'b2'))", eitherIndex},
	{"array_has_all(l, ['a1', 'b2'])", "array_has_all(l, make_array('a1', 'b2'))", useIndex},
	{"list_has_all(l, ['a4', 'b0']) AND u < 9000", "array_has_all(l, make_array('a4', 'b0')) AND u < 9000", useIndex},
	{"array_has_any(l, ['zz'])", "array_has_any(l, make_array('zz'))", useIndex},
	{"list_contains(l, 'zz')", "array_has(l, 'zz')", useIndex},
	{"list_contains(l, 'a3')", "array_has(l, 'a3')", eitherIndex},
	{"NOT array_has_any(l, ['a1'])", "NOT array_has_any(l, make_array('a1'))", noIndex},
}

const (
	noIndex = iota - 1
	eitherIndex
	useIndex
)

// pyLabelRows asks pylance for the sorted u of ix's rows matching each condition, with
// and without its scalar indexes.
func pyLabelRows(t *testing.T, dir string) map[string][2][]int64 {
	t.Helper()
	conds := make([]string, len(labelSQLCases))
	for i, c := range labelSQLCases {
		conds[i] = c.lance
	}
	in, err := json.Marshal(conds)
	require.NoError(t, err)
	const script = `
import json, sys, lance
ds = lance.dataset(sys.argv[1])
out = {}
for c in json.load(sys.stdin):
    rows = [sorted(ds.to_table(columns=["u"], filter=c, use_scalar_index=ix)["u"].to_pylist()) for ix in (True, False)]
    out[c] = rows
json.dump(out, sys.stdout)
`
	cmd := exec.Command(testutil.Python(t), "-c", script, filepath.Join(dir, "ix.lance"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "pylance: %s", stderr.String())
	var got map[string][2][]int64
	require.NoError(t, json.Unmarshal(out, &got))
	return got
}

// LABEL_LIST conditions written with DuckDB's list functions use pylance's LABEL_LIST
// index (EXPLAIN shows it) and return pylance's rows, which also equal a scan of the same
// data without indexes.
func TestLabelListIndexFromSQL(t *testing.T) {
	dir, _ := indexTables(t)
	want := pyLabelRows(t, dir)
	cat := openCatalog(t, dir)
	p := planner.New(cat)
	for _, c := range labelSQLCases {
		t.Run(c.sql, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			w := want[c.lance]
			require.Equal(t, w[0], w[1], "pylance with and without its index")
			node, got := query(ctx, t, cat, mem, "SELECT u FROM ix WHERE "+c.sql+" ORDER BY u")
			require.Equal(t, w[0], got)
			_, plain := query(ctx, t, cat, mem, "SELECT u FROM plain WHERE "+c.sql+" ORDER BY u")
			require.Equal(t, w[0], plain)
			scan := findScan(node)
			require.NotNil(t, scan)
			text, err := p.Explain(ctx, "SELECT u FROM ix WHERE "+c.sql)
			require.NoError(t, err)
			switch c.index {
			case noIndex:
				require.NotContains(t, text, "l_idx", text)
				return
			case eitherIndex:
				return
			}
			require.NotNil(t, scan.Index, text)
			require.Contains(t, text, "l_idx (LabelList) on l", text)
		})
	}
}
