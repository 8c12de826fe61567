package index_test

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/lanceformat/index"
)

// BTree searches over many small pages (runs of matching pages longer than one read, the
// int64 fast path with strict and extreme bounds, and bounds of other types) equal a direct
// evaluation of the column.
func TestBTreeSearchManyPages(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	var addrs []uint64
	for i := range 3000 {
		if i%13 == 0 {
			b.AppendNull()
		} else {
			b.Append(int64((i*37)%1000 - 500))
		}
		addrs = append(addrs, uint64(i/1000)<<32|uint64(i%1000))
	}
	col := &index.Column{Values: b.NewArray(), Addrs: addrs, Fragments: []uint32{0, 1, 2}}
	b.Release()
	defer col.Release()
	vals := col.Values.(*array.Int64)
	match := func(pred func(v int64) bool, nulls bool) []uint64 {
		out := []uint64{}
		for i, a := range col.Addrs {
			if (vals.IsNull(i) && nulls) || (!vals.IsNull(i) && pred(vals.Value(i))) {
				out = append(out, a)
			}
		}
		return out
	}
	u64 := func(v uint64) scalar.Scalar { return scalar.NewUint64Scalar(v) }
	f64 := func(v float64) scalar.Scalar { return scalar.NewFloat64Scalar(v) }
	cases := []struct {
		q    index.Query
		want []uint64
	}{
		{q(index.OpBetween, i64(-400), i64(400)), match(func(v int64) bool { return v >= -400 && v <= 400 }, false)},
		{q(index.OpGt, i64(-490)), match(func(v int64) bool { return v > -490 }, false)},
		{q(index.OpLt, i64(17)), match(func(v int64) bool { return v < 17 }, false)},
		{q(index.OpGt, i64(math.MaxInt64)), []uint64{}},
		{q(index.OpLt, i64(math.MinInt64)), []uint64{}},
		{q(index.OpIn, i64(-500), i64(0), i64(499)), match(func(v int64) bool { return v == -500 || v == 0 || v == 499 }, false)},
		{q(index.OpIsNull), match(func(int64) bool { return false }, true)},
		{q(index.OpIsNotNull), match(func(int64) bool { return true }, false)},
		{q(index.OpGe, u64(250)), match(func(v int64) bool { return v >= 250 }, false)},
		{q(index.OpLt, f64(-99.5)), match(func(v int64) bool { return float64(v) < -99.5 }, false)},
	}
	st := newMemStore()
	built, err := index.Write(ctx, st, "root", index.TypeBTree, col, &index.WriteOptions{BTreeBatchSize: 4}, mem)
	require.NoError(t, err)
	ix, err := index.OpenSegment(ctx, st, "root/"+built.Dir, index.TypeBTree, arrow.PrimitiveTypes.Int64, built.Fragments, mem)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.q.String(), func(t *testing.T) {
			res, err := ix.Search(ctx, c.q)
			require.NoError(t, err)
			require.Equal(t, index.Exact, res.Kind)
			require.Equal(t, c.want, append([]uint64{}, res.Rows.Addrs()...))
		})
	}
}
