package ops_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// TestSharedScans: scans drained concurrently read every row once between them (with the
// filter applied and the shard respected), and count the bytes their readers read.
func TestSharedScans(t *testing.T) {
	rows := scanRows(100)
	cases := []struct {
		name   string
		shard  plan.Shard
		filter plan.Expr
		want   func(i int) bool
	}{
		{"all", plan.Shard{}, nil, func(int) bool { return true }},
		{"filter", plan.Shard{}, call("lt", bln, col(0, i64), lit(int64(33))), func(i int) bool { return i < 33 }},
		{"shard-1-of-3", plan.Shard{Index: 1, Count: 3}, nil, nil}, // want: what the ordered Scan reads
	}
	for _, c := range cases {
		for _, n := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/scans=%d", c.name, n), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				cat, tbl := newScanTable(t, mem, rows, 16, 7)
				defer cat.Release()
				node := plan.NewScan(tbl, []int{0, 1})
				node.Filter, node.Shard = c.filter, c.shard
				scans, err := ops.NewSharedScans(node, n, exec.Env{Mem: mem, BatchSize: 4})
				require.NoError(t, err)
				require.Len(t, scans, n)
				outs := make([][]arrow.RecordBatch, n)
				var wg sync.WaitGroup
				for i, s := range scans {
					wg.Go(func() {
						out, err := exec.Collect(context.Background(), s)
						require.NoError(t, err)
						outs[i] = out
					})
				}
				wg.Wait()
				var got exectest.Rows
				var read int64
				for i, out := range outs {
					got = append(got, exectest.ToRows(out)...)
					releaseAll(out)
					read += scans[i].BytesRead()
				}
				var want exectest.Rows
				for i, r := range rows {
					if c.want != nil && c.want(i) {
						want = append(want, r[:2])
					}
				}
				if c.want == nil {
					ordered, err := exec.Collect(context.Background(), ops.NewScan(node, exec.Env{Mem: mem}))
					require.NoError(t, err)
					want = exectest.ToRows(ordered)
					releaseAll(ordered)
					require.NotEmpty(t, want)
					require.Less(t, len(want), len(rows))
				}
				exectest.RequireRows(t, want, got, false)
				require.Positive(t, read)
			})
		}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat, tbl := newScanTable(t, mem, rows, 16, 7)
	defer cat.Release()
	limited := plan.NewScan(tbl, []int{0})
	limited.Limit = 5
	_, err := ops.NewSharedScans(limited, 2, exec.Env{Mem: mem})
	require.ErrorContains(t, err, "limit")
}
