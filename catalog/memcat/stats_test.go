package memcat_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/catalog/memcat"
)

// TestReaderScanStats: a reader reports the returned batch's share of its columns' buffers,
// and nothing before the batch is returned.
func TestReaderScanStats(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	cat := memcat.New()
	defer cat.Release()
	b := batch(mem, 0, 64) // id int64 (512 value bytes), s one letter each
	require.NoError(t, cat.AddTable("t", sch, b))
	b.Release()
	tbl, err := cat.LoadTable(ctx, "t", catalog.VersionRef{})
	require.NoError(t, err)

	cases := []struct {
		name     string
		cols     []int
		from, to int64
		min, max int64
	}{
		{"id-all", []int{0}, 0, 64, 512, 512 + 64},   // values, padding/validity at most one 64-byte block
		{"id-half", []int{0}, 32, 64, 256, 256 + 32}, // half the rows: half the buffers
		{"both-all", []int{0, 1}, 0, 64, 512 + 64 + 65*4, 512 + 64 + 65*4 + 3*64},
		{"no-columns", nil, 0, 64, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rd, err := tbl.Scan(ctx, catalog.ScanRequest{Columns: c.cols, Limit: -1}, catalog.Morsel{Start: c.from, End: c.to}, mem)
			require.NoError(t, err)
			defer rd.Close()
			st, ok := rd.(catalog.ScanStats)
			require.True(t, ok)
			require.Zero(t, st.BytesRead())
			rec, err := rd.Next(ctx)
			require.NoError(t, err)
			rec.Release()
			require.GreaterOrEqual(t, st.BytesRead(), c.min)
			require.LessOrEqual(t, st.BytesRead(), c.max)
		})
	}
}
