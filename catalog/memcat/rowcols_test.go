package memcat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
)

// TestScanRowColumns checks the hidden row columns: after the requested columns, _rowid
// then _rowaddr, both batch index << 32 | row, under limits and in any combination.
func TestScanRowColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	cat := memcat.New(memcat.WithMorselRows(4))
	defer cat.Release()
	b1, b2 := batch(mem, 0, 10), batch(mem, 10, 3)
	require.NoError(t, cat.AddTable("t", sch, b1, b2))
	b1.Release()
	b2.Release()
	tbl, err := cat.LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)

	tests := []struct {
		name   string
		req    catalog.ScanRequest
		morsel catalog.Morsel
		names  []string
		cols   []string
	}{
		{"both after a column", catalog.ScanRequest{Columns: []int{0}, Limit: -1, RowID: true, RowAddr: true},
			catalog.Morsel{Fragment: 0, Start: 4, End: 8}, []string{"id", "_rowid", "_rowaddr"},
			[]string{"[4 5 6 7]", "[4 5 6 7]", "[4 5 6 7]"}},
		{"address only, second batch", catalog.ScanRequest{Limit: -1, RowAddr: true},
			catalog.Morsel{Fragment: 1, Start: 0, End: 3}, []string{"_rowaddr"},
			[]string{"[4294967296 4294967297 4294967298]"}},
		{"id only, limited", catalog.ScanRequest{Columns: []int{1}, Limit: 2, RowID: true},
			catalog.Morsel{Fragment: 1, Start: 1, End: 3}, []string{"s", "_rowid"},
			[]string{`["l" "m"]`, "[4294967297 4294967298]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := tbl.Scan(ctx, tc.req, tc.morsel, mem)
			require.NoError(t, err)
			defer func() { require.NoError(t, rd.Close()) }()
			rec, err := rd.Next(ctx)
			require.NoError(t, err)
			defer rec.Release()
			var names, cols []string
			for i, f := range rec.Schema().Fields() {
				names = append(names, f.Name)
				cols = append(cols, rec.Column(i).String())
				if i >= len(tc.req.Columns) {
					require.False(t, f.Nullable)
					require.Zero(t, rec.Column(i).NullN())
				}
			}
			require.Equal(t, tc.names, names)
			require.Equal(t, tc.cols, cols)
		})
	}
}
