package kernel_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// A sliced boolean array (as batch size 1 produces) casts by its own rows, not its
// buffer's first rows.
func TestCastBoolToNumberSliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues([]bool{true, false, false, true, false}, []bool{true, true, false, true, true})
	full := b.NewArray()
	defer full.Release()
	sliced := array.NewSlice(full, 1, 5)
	defer sliced.Release()
	for _, to := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Float64} {
		t.Run(to.String(), func(t *testing.T) {
			require.True(t, kernel.IsBoolToNumber(sliced.DataType(), to))
			out := kernel.CastBoolToNumber(mem, sliced, to)
			defer out.Release()
			require.True(t, arrow.TypeEqual(to, out.DataType()))
			require.Equal(t, "[0 (null) 1 0]", out.String())
		})
	}
	require.False(t, kernel.IsBoolToNumber(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64))
}
