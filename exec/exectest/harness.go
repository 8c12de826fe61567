package exectest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
)

// BatchSizes are the input (and Env) batch sizes Run replays; 0 means exec.DefaultBatchSize.
var BatchSizes = []int{1, 2, 3, 16, 0}

// Case is one operator test.
type Case struct {
	Name   string
	Schema *arrow.Schema // input schema
	Input  Rows
	// Make builds the operator under test over input (which it must own and close).
	Make func(input exec.Operator, env exec.Env) (exec.Operator, error)
	// Expected rows, compared in order when Ordered, else as multisets.
	Expected Rows
	Ordered  bool
	// WantErr, when set, is called with the error the run must fail with (Expected is
	// then ignored).
	WantErr func(t *testing.T, err error)
}

// Run runs c at every batch size in both layouts.
func Run(t *testing.T, c Case) {
	t.Helper()
	for _, layout := range []Layout{Plain, Hostile} {
		for _, size := range BatchSizes {
			name := fmt.Sprintf("%s/layout=%d/batch=%d", c.Name, layout, size)
			t.Run(name, func(t *testing.T) { runOnce(t, c, layout, size) })
		}
	}
}

func runOnce(t *testing.T, c Case, layout Layout, size int) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem, BatchSize: size, Parallelism: 1}.WithDefaults()
	batches, err := MakeBatches(mem, c.Schema, c.Input, size, layout)
	require.NoError(t, err)
	op, err := c.Make(NewSource(c.Schema, batches), env)
	require.NoError(t, err)
	out, err := exec.Collect(context.Background(), op)
	defer func() {
		for _, b := range out {
			b.Release()
		}
	}()
	if c.WantErr != nil {
		require.Error(t, err)
		c.WantErr(t, err)
		return
	}
	require.NoError(t, err)
	for _, b := range out {
		require.True(t, b.Schema().Equal(op.Schema()), "batch schema %s, operator schema %s", b.Schema(), op.Schema())
		if size > 0 {
			require.LessOrEqual(t, b.NumRows(), int64(max(size, 1)), "batch larger than the batch size")
		}
	}
	RequireRows(t, c.Expected, ToRows(out), c.Ordered)
}

// RequireRows fails t unless got equals want (in order when ordered, else as multisets).
func RequireRows(t testing.TB, want, got Rows, ordered bool) {
	t.Helper()
	if !ordered {
		want, got = sortRows(want), sortRows(got)
	}
	require.Len(t, got, len(want), "row count\nwant %v\ngot  %v", want, got)
	for r := range want {
		require.Len(t, got[r], len(want[r]), "row %d width", r)
		for c := range want[r] {
			require.True(t, Equal(want[r][c], got[r][c]), "row %d column %d: want %v (%T), got %v (%T)\nwant %v\ngot  %v",
				r, c, want[r][c], normalize(want[r][c]), got[r][c], got[r][c], want, got)
		}
	}
}

func sortRows(rows Rows) Rows {
	keyed := make([]struct {
		key string
		row []any
	}, len(rows))
	for i, r := range rows {
		var key strings.Builder
		for _, v := range r {
			switch v := normalize(v).(type) {
			case float64:
				fmt.Fprintf(&key, "%.6g|", v)
			default:
				fmt.Fprintf(&key, "%T:%v|", v, v)
			}
		}
		keyed[i].key = key.String()
		keyed[i].row = r
	}
	slices.SortStableFunc(keyed, func(a, b struct {
		key string
		row []any
	}) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	out := make(Rows, len(rows))
	for i, k := range keyed {
		out[i] = k.row
	}
	return out
}
