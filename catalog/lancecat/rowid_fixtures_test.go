package lancecat_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/internal/testutil"
)

// TestRowColumnsOldFixtures compares the hidden row columns of tables written by old Lance
// versions (legacy v1 files, and v0.16's repeated fragment id, whose rows pylance gives the
// same addresses) with pylance's to_table(with_row_id=True, with_row_address=True).
func TestRowColumnsOldFixtures(t *testing.T) {
	fixtures := testutil.SharedFixtures(t)
	tables := []struct{ dir, table string }{
		{"v0.15.0", "v1_with_files"},
		{"v0.15.0", "v2_with_files"},
		{"v0.16.0", "wrong_data_version_no_fix"},
		{"v0.16.0", "wrong_data_version_can_fix"},
	}
	script := `
import json, sys, lance
out = []
for uri in sys.argv[1:]:
    t = lance.dataset(uri).to_table(columns=[], with_row_id=True, with_row_address=True)
    out.append([t["_rowid"].to_pylist(), t["_rowaddr"].to_pylist()])
json.dump(out, sys.stdout)
`
	args := []string{"-c", script}
	for _, tc := range tables {
		args = append(args, filepath.Join(fixtures, tc.dir, tc.table+".lance"))
	}
	out, err := exec.Command(testutil.Python(t), args...).Output()
	require.NoError(t, err)
	var wants [][2][]uint64
	require.NoError(t, json.Unmarshal(out, &wants))
	require.Len(t, wants, len(tables))
	for i, tc := range tables {
		t.Run(tc.dir+"/"+tc.table, func(t *testing.T) {
			want := wants[i]
			require.NotEmpty(t, want[0])
			dir := filepath.Join(fixtures, tc.dir)

			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ctx := context.Background()
			tbl, err := openCatalog(t, dir).LoadTable(ctx, tc.table, catalog.VersionRef{})
			require.NoError(t, err)
			req := catalog.ScanRequest{Columns: []int{0}, Limit: -1, RowID: true, RowAddr: true}
			ms, err := tbl.Morsels(ctx, req)
			require.NoError(t, err)
			var got [2][]uint64
			for _, m := range ms {
				rd, err := tbl.Scan(ctx, req, m, mem)
				require.NoError(t, err)
				require.Equal(t, arrow.NewSchema(append([]arrow.Field{tbl.Schema().Field(0)}, req.RowFields()...), nil).String(),
					rd.Schema().String())
				for {
					rec, err := rd.Next(ctx)
					require.NoError(t, err)
					if rec == nil {
						break
					}
					got[0] = append(got[0], rec.Column(1).(*array.Uint64).Uint64Values()...)
					got[1] = append(got[1], rec.Column(2).(*array.Uint64).Uint64Values()...)
					rec.Release()
				}
				require.NoError(t, rd.Close())
			}
			require.Equal(t, want, got)
		})
	}
}
