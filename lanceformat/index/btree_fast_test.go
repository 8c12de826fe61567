package index_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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

// The int64 page bounds (binary search over sorted pages, a linear pass otherwise) and the
// whole-page shortcut give the rows a direct evaluation of the column gives, for sorted and
// shuffled keys with and without duplicates, over several page sizes and fragments.
func TestBTreeIntBoundsMatchScan(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 9))
	layouts := []struct {
		name             string
		rows, page, dups int
		shuffled         bool
	}{
		{"sorted unique", 2000, 16, 1, false},
		{"sorted duplicates", 3000, 7, 5, false},
		{"shuffled", 1500, 32, 2, true},
		{"one page", 50, 64, 1, false},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			keys := make([]int64, l.rows)
			for i := range keys {
				keys[i] = int64(i/l.dups)*3 - 1000
			}
			if l.shuffled {
				rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			}
			b := array.NewInt64Builder(mem)
			var addrs []uint64
			for i, k := range keys {
				b.Append(k)
				addrs = append(addrs, uint64(i/700)<<32|uint64(i%700))
			}
			col := &index.Column{Values: b.NewArray(), Addrs: addrs, Fragments: []uint32{0, 1, 2, 3, 4}[:(l.rows+699)/700]}
			b.Release()
			defer col.Release()
			st := newMemStore()
			built, err := index.Write(ctx, st, "root", index.TypeBTree, col, &index.WriteOptions{BTreeBatchSize: l.page}, mem)
			require.NoError(t, err)
			ix, err := index.OpenSegment(ctx, st, "root/"+built.Dir, index.TypeBTree, arrow.PrimitiveTypes.Int64, built.Fragments, mem)
			require.NoError(t, err)
			lo, hi := int64(-1000), int64(l.rows/l.dups)*3-1000
			for range 60 {
				a := lo - 5 + rng.Int64N(hi-lo+10)
				w := rng.Int64N(400)
				queries := []struct {
					q    index.Query
					pred func(int64) bool
				}{
					{q(index.OpBetween, i64(a), i64(a+w)), func(v int64) bool { return v >= a && v <= a+w }},
					{q(index.OpEq, i64(a)), func(v int64) bool { return v == a }},
					{q(index.OpGt, i64(a)), func(v int64) bool { return v > a }},
					{q(index.OpLe, i64(a)), func(v int64) bool { return v <= a }},
					{q(index.OpIn, i64(a), i64(a+w), i64(a-w)), func(v int64) bool { return v == a || v == a+w || v == a-w }},
				}
				for _, c := range queries {
					want := []uint64{}
					for i, k := range keys {
						if c.pred(k) {
							want = append(want, addrs[i])
						}
					}
					slices.Sort(want)
					res, err := ix.Search(ctx, c.q)
					require.NoError(t, err)
					require.Equal(t, index.Exact, res.Kind)
					require.Equal(t, want, append([]uint64{}, res.Rows.Addrs()...), "%s", c.q)
				}
			}
		})
	}
}
