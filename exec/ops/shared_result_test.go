package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
)

// TestSharedResult: the input is opened and drained once whatever the number of readers
// and their order (interleaved, concurrent, one closed before reading); every reader gets
// every row; the last Close releases the rows (checked allocator) and closes the input once;
// no reader can be added after that; the reservation is returned to the pool.
func TestSharedResult(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rows := exectest.Rows{}
	for i := range 50 {
		var v any = int64(i)
		if i%7 == 0 {
			v = nil
		}
		rows = append(rows, []any{v})
	}
	cases := []struct {
		name    string
		readers int
		run     func(ctx context.Context, rs []exec.Operator) ([]exectest.Rows, error)
	}{
		{"sequential", 3, func(ctx context.Context, rs []exec.Operator) ([]exectest.Rows, error) {
			out := make([]exectest.Rows, len(rs))
			for i, r := range rs {
				bs, err := exec.Collect(ctx, r)
				out[i] = exectest.ToRows(bs)
				releaseAll(bs)
				if err != nil {
					return nil, err
				}
			}
			return out, nil
		}},
		{"concurrent", 4, func(ctx context.Context, rs []exec.Operator) ([]exectest.Rows, error) {
			out := make([]exectest.Rows, len(rs))
			var g errgroup.Group
			for i, r := range rs {
				g.Go(func() error {
					bs, err := exec.Collect(ctx, r)
					out[i] = exectest.ToRows(bs)
					releaseAll(bs)
					return err
				})
			}
			return out, g.Wait()
		}},
		{"one-closed-unread", 2, func(ctx context.Context, rs []exec.Operator) ([]exectest.Rows, error) {
			require.NoError(t, rs[0].Close())
			bs, err := exec.Collect(ctx, rs[1])
			defer releaseAll(bs)
			return []exectest.Rows{exectest.ToRows(bs)}, err // the closed reader read nothing
		}},
	}
	for _, c := range cases {
		for _, size := range []int{1, 7, 64} {
			t.Run(c.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				bs, err := exectest.MakeBatches(mem, sc, rows, size, exectest.Hostile)
				require.NoError(t, err)
				src := exectest.NewSource(sc, bs)
				pool := exec.NewMemoryPool(0)
				s := ops.NewSharedResult(src, exec.Env{Mem: mem, Pool: pool})
				rs := make([]exec.Operator, c.readers)
				for i := range rs {
					r, ok := s.Reader()
					require.True(t, ok)
					rs[i] = r
				}
				got, err := c.run(context.Background(), rs)
				require.NoError(t, err)
				for _, g := range got {
					exectest.RequireRows(t, rows, g, true)
				}
				require.Equal(t, 1, src.Opened)
				for _, r := range rs {
					require.NoError(t, r.Close()) // again: Close is idempotent
				}
				require.Equal(t, 1, src.Closed)
				require.Equal(t, int64(0), pool.Used())
				_, ok := s.Reader()
				require.False(t, ok, "a closed run takes no new reader")
			})
		}
	}
}
