package kernel_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// TestConstCompare checks Select against a row-by-row comparison for every operator, both
// operand orders, whole batches and narrowed selections, with NULLs, for int32, date32,
// int64 and decimal columns (including decimal values beyond int64).
func TestConstCompare(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 200
	value := func(i int) int64 { return int64(i*37%101 - 50) }
	valid := func(i int) bool { return i%9 != 4 }
	dec := &arrow.Decimal128Type{Precision: 20, Scale: 2}
	huge := decimal128.FromU64(math.MaxUint64).Add(decimal128.FromI64(7)) // beyond int64
	cols := map[string]arrow.Array{}
	bi, bd, bl, bc := array.NewInt32Builder(mem), array.NewDate32Builder(mem), array.NewInt64Builder(mem), array.NewDecimal128Builder(mem, dec)
	for i := range n {
		if !valid(i) {
			bi.AppendNull()
			bd.AppendNull()
			bl.AppendNull()
			bc.AppendNull()
			continue
		}
		bi.Append(int32(value(i)))
		bd.Append(arrow.Date32(value(i)))
		bl.Append(value(i) * 1e12)
		switch i % 50 {
		case 7:
			bc.Append(huge)
		case 8:
			bc.Append(huge.Negate())
		default:
			bc.Append(decimal128.FromI64(value(i) * 100))
		}
	}
	for name, b := range map[string]array.Builder{"int32": bi, "date32": bd, "int64": bl, "decimal": bc} {
		cols[name] = b.NewArray()
		b.Release()
		defer cols[name].Release()
	}
	// want is the comparison of row i with the constant k (in the column's units).
	want := func(name string, i int, fn string, k int64) bool {
		v := value(i)
		switch {
		case name == "int64":
			v *= 1e12
		case name == "decimal" && i%50 == 7:
			return fn == "gt" || fn == "gte" || fn == "not_equal"
		case name == "decimal" && i%50 == 8:
			return fn == "lt" || fn == "lte" || fn == "not_equal"
		case name == "decimal":
			v *= 100
		}
		return map[string]bool{"equal": v == k, "not_equal": v != k, "lt": v < k, "lte": v <= k, "gt": v > k, "gte": v >= k}[fn]
	}
	lits := map[string]struct {
		lit scalar.Scalar
		k   int64
	}{
		"int32":   {scalar.NewInt32Scalar(3), 3},
		"date32":  {scalar.NewDate32Scalar(-7), -7},
		"int64":   {scalar.NewInt64Scalar(12e12), 12e12},
		"decimal": {scalar.NewDecimal128Scalar(decimal128.FromI64(-70), &arrow.Decimal128Type{Precision: 3, Scale: 1}), -700},
	}
	flip := map[string]string{"lt": "gt", "lte": "gte", "gt": "lt", "gte": "lte", "equal": "equal", "not_equal": "not_equal"}
	for name, arr := range cols {
		for _, fn := range []string{"equal", "not_equal", "lt", "lte", "gt", "gte"} {
			for _, litLeft := range []bool{false, true} {
				op := fn
				if litLeft {
					op = flip[fn] // lit op col is col fn lit
				}
				c, ok := kernel.NewConstCompare(arr.DataType(), op, lits[name].lit, litLeft)
				require.True(t, ok, "%s %s", name, op)
				var full, odd []int32
				for i := range n {
					if valid(i) && want(name, i, fn, lits[name].k) {
						full = append(full, int32(i))
						if i%2 == 1 {
							odd = append(odd, int32(i))
						}
					}
				}
				got, ok := c.Select(arr, make([]int32, 3), true)
				require.True(t, ok)
				require.Equal(t, full, nonNil(got), "%s %s (lit left %v)", name, fn, litLeft)
				var sel []int32
				for i := 1; i < n; i += 2 {
					sel = append(sel, int32(i))
				}
				got, ok = c.Select(arr, sel, false)
				require.True(t, ok)
				require.Equal(t, odd, nonNil(got), "%s %s on a selection", name, fn)
			}
		}
	}
	_, ok := kernel.NewConstCompare(dec, "lt", scalar.NewDecimal128Scalar(decimal128.FromI64(1), &arrow.Decimal128Type{Precision: 5, Scale: 3}), false)
	require.False(t, ok, "0.001 has no exact form at scale 2")
	c, ok := kernel.NewConstCompare(arrow.PrimitiveTypes.Int32, "equal", scalar.MakeNullScalar(arrow.PrimitiveTypes.Int32), false)
	require.True(t, ok)
	got, ok := c.Select(cols["int32"], nil, true)
	require.True(t, ok)
	require.Empty(t, got, "nothing equals NULL")
	_, ok = kernel.NewConstCompare(arrow.PrimitiveTypes.Int32, "is_not_distinct_from", scalar.MakeNullScalar(arrow.PrimitiveTypes.Int32), false)
	require.False(t, ok, "only the six comparisons")
	_, ok = c.Select(cols["int64"], nil, true)
	require.False(t, ok, "another column type")
	_, ok = kernel.NewConstCompare(arrow.PrimitiveTypes.Float64, "lt", scalar.NewFloat64Scalar(1), false)
	require.False(t, ok, "floats are not supported")
}

func nonNil(s []int32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestConstCompareBlocks: whole-batch selection over runs of 64 rows where every
// row, no row and some rows pass, with a length that is not a multiple of 64, for ranges
// and <>, against a row-by-row comparison.
func TestConstCompareBlocks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 64*5 + 37
	b := array.NewInt32Builder(mem)
	for i := range n {
		switch (i / 64) % 3 {
		case 0:
			b.Append(5) // every row in [0, 9]
		case 1:
			b.Append(int32(100 + i)) // none
		default:
			b.Append(int32(i % 13))
		}
	}
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	vals := arr.(*array.Int32).Int32Values()
	cases := []struct {
		fn   string
		k    int32
		keep func(v int32) bool
	}{
		{"lte", 9, func(v int32) bool { return v <= 9 }},
		{"gt", 9, func(v int32) bool { return v > 9 }},
		{"not_equal", 5, func(v int32) bool { return v != 5 }},
		{"equal", 5, func(v int32) bool { return v == 5 }},
	}
	for _, c := range cases {
		cc, ok := kernel.NewConstCompare(arrow.PrimitiveTypes.Int32, c.fn, scalar.NewInt32Scalar(c.k), false)
		require.True(t, ok)
		var want []int32
		for i, v := range vals {
			if c.keep(v) {
				want = append(want, int32(i))
			}
		}
		got, ok := cc.Select(arr, nil, true)
		require.True(t, ok)
		require.Equal(t, want, nonNil(got), c.fn)
		mask, kept, ok := cc.Mask(arr, make([]bool, 5))
		require.True(t, ok)
		require.Len(t, mask, n)
		require.Equal(t, len(want), kept, c.fn)
		require.Equal(t, want, nonNil(kernel.MaskSel(nil, mask)), c.fn)
	}
}

// TestConstCompareIntersect: the intersection of two ranges keeps exactly the rows both
// keep; an empty intersection keeps none; <> and other column types do not intersect.
func TestConstCompareIntersect(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	for i := range 100 {
		if i%10 == 3 {
			b.AppendNull()
			continue
		}
		b.Append(int64(i - 50))
	}
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	i64 := arrow.PrimitiveTypes.Int64
	mk := func(fn string, k int64) kernel.ConstCompare {
		c, ok := kernel.NewConstCompare(i64, fn, scalar.NewInt64Scalar(k), false)
		require.True(t, ok)
		return c
	}
	cases := []struct {
		name string
		x, y kernel.ConstCompare
	}{
		{"overlap", mk("gte", -10), mk("lt", 20)},
		{"nested", mk("gt", -40), mk("equal", 7)},
		{"disjoint", mk("gt", 10), mk("lt", 0)},
		{"same-side", mk("gte", 0), mk("gte", 5)},
	}
	for _, c := range cases {
		m, ok := c.x.Intersect(c.y)
		require.True(t, ok, c.name)
		sx, _ := c.x.Select(arr, nil, true)
		want, _ := c.y.Select(arr, sx, false)
		got, _ := m.Select(arr, nil, true)
		require.Equal(t, nonNil(want), nonNil(got), c.name)
	}
	require.Empty(t, func() []int32 {
		m, _ := mk("gt", 10).Intersect(mk("lt", 0))
		s, _ := m.Select(arr, nil, true)
		return s
	}())
	_, _, ok := mk("gt", 0).Mask(arr, nil)
	require.False(t, ok, "a column with NULLs takes Select")
	_, ok = mk("not_equal", 3).Intersect(mk("lt", 9))
	require.False(t, ok, "<> is not a range")
	d, ok := kernel.NewConstCompare(arrow.PrimitiveTypes.Int32, "lt", scalar.NewInt32Scalar(3), false)
	require.True(t, ok)
	_, ok = mk("gt", 0).Intersect(d)
	require.False(t, ok, "another column type")
}

// BenchmarkConstCompareSelect: whole-batch selection of an int32 column keeping nearly
// every row (TPC-H Q1's l_shipdate) and about one row in seven (Q6's).
func BenchmarkConstCompareSelect(b *testing.B) {
	mem := memory.NewGoAllocator()
	bld := array.NewInt32Builder(mem)
	for i := range 16 << 10 {
		bld.Append(int32(i * 7919 % 2557))
	}
	arr := bld.NewArray()
	bld.Release()
	defer arr.Release()
	for _, c := range []struct {
		name string
		k    int32
	}{{"most", 2520}, {"seventh", 365}} {
		cc, ok := kernel.NewConstCompare(arrow.PrimitiveTypes.Int32, "lt", scalar.NewInt32Scalar(c.k), false)
		require.True(b, ok)
		sel := make([]int32, 0, arr.Len())
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(arr.Len()))
			for b.Loop() {
				sel, _ = cc.Select(arr, sel, true)
			}
		})
	}
}
