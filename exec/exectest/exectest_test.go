package exectest_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
)

var sch = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

var rows = exectest.Rows{{1, "a", 1.5, true}, {nil, nil, nil, nil}, {3, "", -2.0, false}}

func TestMakeBatchesLayouts(t *testing.T) {
	for _, layout := range []exectest.Layout{exectest.Plain, exectest.Hostile} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		bs, err := exectest.MakeBatches(mem, sch, rows, 2, layout)
		require.NoError(t, err)
		require.Len(t, bs, 2)
		exectest.RequireRows(t, rows, exectest.ToRows(bs), true)
		if layout == exectest.Hostile {
			col := bs[0].Column(0)
			require.Equal(t, 1, col.Data().Offset(), "hostile arrays are slices")
			require.Equal(t, 1, col.NullN())
			raw := arrow.GetValues[int32](col.Data(), 1)
			require.NotZero(t, raw[1], "a junk value lies under the NULL")
		}
		for _, b := range bs {
			b.Release()
		}
		mem.AssertSize(t, 0)
	}
}

func TestMakeBatchesBadValue(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	_, err := exectest.MakeBatches(mem, sch, exectest.Rows{{"x", "a", 1.0, true}}, 0, exectest.Plain)
	require.Error(t, err)
	_, err = exectest.MakeBatches(mem, sch, exectest.Rows{{1, "a"}}, 0, exectest.Plain)
	require.Error(t, err)
}

func TestEqual(t *testing.T) {
	require.True(t, exectest.Equal(1, int64(1)))
	require.True(t, exectest.Equal(0.1+0.2, 0.3))
	require.False(t, exectest.Equal(1.0, 1.001))
	require.False(t, exectest.Equal(1, 1.0), "an int is not a float")
	require.False(t, exectest.Equal(nil, int64(0)))
}

// The harness itself: an identity operator passes, at every batch size and layout.
func TestRunIdentity(t *testing.T) {
	exectest.Run(t, exectest.Case{
		Name: "identity", Schema: sch, Input: rows, Expected: rows, Ordered: true,
		Make: func(in exec.Operator, _ exec.Env) (exec.Operator, error) { return in, nil },
	})
}
