package ops

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
)

// TestTakeRows: consecutive positions covering at least half the batch give a slice with
// exactly the rows a copy gives (NULLs, strings, a batch that is itself a slice); other
// position lists are copied.
func TestTakeRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rows := exectest.Rows{}
	for i := range 40 {
		var iv, sv any = int64(i), string(rune('a' + i%26))
		if i%5 == 0 {
			iv = nil
		}
		if i%7 == 0 {
			sv = nil
		}
		rows = append(rows, []any{iv, sv})
	}
	bs, err := exectest.MakeBatches(mem, sc, rows, 40, exectest.Hostile)
	require.NoError(t, err)
	whole := bs[0]
	defer whole.Release()
	sliced := whole.NewSlice(3, 37)
	defer sliced.Release()
	cases := []struct {
		name  string
		rows  []int32
		slice bool
	}{
		{"all", seq(0, 34), true},
		{"middle", seq(5, 20), true},
		{"one", []int32{9}, true},
		{"repeat", []int32{4, 4, 5}, false},
		{"gap", []int32{1, 2, 4}, false},
		{"descending", []int32{3, 2, 1}, false},
		{"wraps-length", []int32{0, 2, 1}, false},
	}
	env := exec.Env{Mem: mem}
	for _, c := range cases {
		for _, b := range []arrow.RecordBatch{whole, sliced} {
			t.Run(c.name, func(t *testing.T) {
				want, err := takeSel(context.Background(), mem, b, c.rows)
				require.NoError(t, err)
				defer want.Release()
				got, err := takeRows(context.Background(), env, b, c.rows)
				require.NoError(t, err)
				defer got.Release()
				require.Equal(t, c.slice, consecutive(c.rows))
				// Only a run covering at least half of b is a slice (sharing b's buffers).
				shares := got.Column(0).Data().Buffers()[1] == b.Column(0).Data().Buffers()[1]
				require.Equal(t, c.slice && 2*int64(len(c.rows)) >= b.NumRows(), shares)
				exectest.RequireRows(t, exectest.ToRows([]arrow.RecordBatch{want}), exectest.ToRows([]arrow.RecordBatch{got}), true)
				require.Equal(t, int64(len(c.rows)), got.NumRows())
				require.Equal(t, want.Column(1).(*array.String).Value(0), got.Column(1).(*array.String).Value(0))
			})
		}
	}
}

func seq(from, n int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = from + int32(i)
	}
	return out
}
