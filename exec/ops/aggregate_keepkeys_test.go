package ops

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
)

// TestAggregateKeepKeys: keepKeys saves the same key values as arrow's compute.Take for
// the key types kernel.Take handles (with NULLs, and sliced) and for those it leaves to
// compute.Take (boolean, list), over empty and repeated row selections.
func TestAggregateKeepKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{10, 11, 12, 13, 14, 15}, []bool{true, false, true, true, true, false})
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "", "ccc", "dd", "", "f"}, []bool{true, true, false, true, true, true})
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues([]bool{true, false, true, true, false, false}, []bool{true, true, true, false, true, true})
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 2})
	for i := range 6 {
		db.Append(decimal128.FromI64(int64(i * 1001)))
	}
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	for i := range 6 {
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues([]int32{int32(i), int32(-i)}, nil)
	}
	full := []arrow.Array{ib.NewArray(), sb.NewArray(), bb.NewArray(), db.NewArray(), lb.NewArray()}
	for _, b := range []interface{ Release() }{ib, sb, bb, db, lb} {
		b.Release()
	}
	defer releaseArrays(full)
	sliced := make([]arrow.Array, len(full))
	for i, a := range full {
		sliced[i] = array.NewSlice(a, 1, 6)
	}
	defer releaseArrays(sliced)
	for _, keys := range [][]arrow.Array{full, sliced} {
		for _, rows := range [][]int32{{}, {0, 2, 4}, {4, 3, 3, 1, 0}} {
			a := &Aggregate{env: exec.Env{Mem: mem}, keyChunks: make([][]arrow.Array, len(keys))}
			require.NoError(t, a.keepKeys(context.Background(), keys, rows))
			idxB := array.NewInt32Builder(mem)
			idxB.AppendValues(rows, nil)
			idx := idxB.NewArray()
			idxB.Release()
			for i, k := range keys {
				want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), k, idx)
				require.NoError(t, err)
				require.Len(t, a.keyChunks[i], 1)
				got := a.keyChunks[i][0]
				require.True(t, arrow.TypeEqual(want.DataType(), got.DataType()), "%s", k.DataType())
				require.True(t, array.Equal(want, got), "%s rows %v: %v != %v", k.DataType(), rows, got, want)
				want.Release()
				releaseArrays(a.keyChunks[i])
			}
			idx.Release()
		}
	}
}

// TestKeepKeysDictionary: dictionary-typed keys (fixed width by their indices) keep their
// dictionary: they go through arrow's take, as kernel.Take declines them.
func TestKeepKeysDictionary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	bld := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"x", "y", "x", "z"} {
		require.NoError(t, bld.AppendString(s))
	}
	k := bld.NewArray()
	bld.Release()
	defer k.Release()
	rows := []int32{0, 1, 3}
	a := &Aggregate{env: exec.Env{Mem: mem}, keyChunks: make([][]arrow.Array, 1)}
	require.NoError(t, a.keepKeys(context.Background(), []arrow.Array{k}, rows))
	defer releaseArrays(a.keyChunks[0])
	idxB := array.NewInt32Builder(mem)
	idxB.AppendValues(rows, nil)
	idx := idxB.NewArray()
	idxB.Release()
	defer idx.Release()
	want, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), k, idx)
	require.NoError(t, err)
	defer want.Release()
	got := a.keyChunks[0][0]
	require.True(t, array.Equal(want, got), "%v != %v", got, want)
}
