package ops

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// settleNullCounts must leave no lazily computed null count behind (a shared build
// batch is read by several workers, and arrow's Array.NullN writes the count on first use).
func TestSettleNullCounts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	bld.AppendValues([]int64{1, 2, 3, 4, 5}, []bool{true, false, true, true, false})
	full := bld.NewInt64Array()
	defer full.Release()
	sl := array.NewSlice(full, 1, 5) // a slice: null count unknown
	defer sl.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{sl}, 4)
	defer batch.Release()
	settleNullCounts(batch)
	require.GreaterOrEqual(t, batch.Column(0).Data().NullN(), 0, "null count still unknown after settleNullCounts")
}
