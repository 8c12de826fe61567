package kernel_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// strPool is the values the string tests draw from: empty, multi-byte UTF-8, shared
// prefixes and equal lengths, so that neither a length test nor a prefix test alone decides.
var strPool = []string{"", "AIR", "AIR REG", "MAIL", "SHIP", "RAIL", "TRUCK", "FOB", "ÄIR", "日本", "日本語",
	"DELIVER IN PERSON", "NONE", "COLLECT COD", "TAKE BACK RETURN", "AIR ", "air", "x"}

// buildStrings returns n random values of strPool (nil: NULL) and the array of them.
func buildStrings(mem memory.Allocator, rng *rand.Rand, n int, large bool) ([]*string, arrow.Array) {
	var b array.Builder
	if large {
		b = array.NewLargeStringBuilder(mem)
	} else {
		b = array.NewStringBuilder(mem)
	}
	defer b.Release()
	vals := make([]*string, n)
	for i := range vals {
		if rng.IntN(7) == 0 {
			b.AppendNull()
			continue
		}
		s := strPool[rng.IntN(len(strPool))]
		vals[i] = &s
		if large {
			b.(*array.LargeStringBuilder).Append(s)
		} else {
			b.(*array.StringBuilder).Append(s)
		}
	}
	return vals, b.NewArray()
}

// TestStrSet checks StrSet.Select against a row-by-row test for sets of 0 to 10 constants
// (linear and hashed), =/IN and <>, whole batches and narrowed selections, on sliced 32- and
// 64-bit-offset arrays with NULLs.
func TestStrSet(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, large := range []bool{false, true} {
		vals, full := buildStrings(mem, rng, 300, large)
		defer full.Release()
		for _, cut := range [][2]int{{0, 300}, {7, 300}, {13, 14}, {5, 8}, {100, 100}} {
			arr := array.NewSlice(full, int64(cut[0]), int64(cut[1]))
			defer arr.Release()
			rows := vals[cut[0]:cut[1]]
			for _, size := range []int{0, 1, 2, 3, 8, 9, 12} {
				set := make([]string, size)
				for i := range set {
					set[i] = strPool[rng.IntN(len(strPool))]
				}
				for _, neg := range []bool{false, true} {
					s := kernel.NewStrSet(set, neg)
					var want, every, odd []int32
					for i, v := range rows {
						if i%2 == 1 {
							odd = append(odd, int32(i))
						}
						if v != nil && slices.Contains(set, *v) != neg {
							want = append(want, int32(i))
							if i%2 == 1 {
								every = append(every, int32(i))
							}
						}
					}
					got, ok := s.Select(arr, []int32{99}, true)
					require.True(t, ok)
					require.Equal(t, want, nilIfEmpty(got), "large=%v cut=%v set=%q neg=%v", large, cut, set, neg)
					got, ok = s.Select(arr, slices.Clone(odd), false)
					require.True(t, ok)
					require.Equal(t, every, nilIfEmpty(got), "narrowed: large=%v cut=%v set=%q neg=%v", large, cut, set, neg)
				}
			}
		}
	}
	ints := array.NewInt32Builder(mem)
	defer ints.Release()
	ints.Append(1)
	ia := ints.NewArray()
	defer ia.Release()
	_, ok := kernel.NewStrSet([]string{"1"}, false).Select(ia, nil, true)
	require.False(t, ok, "an int32 column is not a string column")
}

func nilIfEmpty(s []int32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestColCompare checks ColCompare.Select against a row-by-row comparison for every
// operator on int32, date32, int64 and decimal columns with NULLs, sliced, whole and
// narrowed; mismatched types are refused.
func TestColCompare(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 257
	dec := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int64, dec}
	for _, typ := range types {
		var vals [2][]*int64
		var arrs [2]arrow.Array
		for side := range 2 {
			b := array.NewBuilder(mem, typ)
			vals[side] = make([]*int64, n)
			for i := range n {
				if rng.IntN(6) == 0 {
					b.AppendNull()
					continue
				}
				v := int64(rng.IntN(9) - 4)
				vals[side][i] = &v
				switch bb := b.(type) {
				case *array.Int32Builder:
					bb.Append(int32(v))
				case *array.Date32Builder:
					bb.Append(arrow.Date32(v))
				case *array.Int64Builder:
					bb.Append(v << 40)
				case *array.Decimal128Builder:
					bb.Append(decimal128.FromI64(v).Mul(decimal128.FromU64(1 << 62)))
				}
			}
			full := b.NewArray()
			b.Release()
			arrs[side] = array.NewSlice(full, 3, n)
			full.Release()
			defer arrs[side].Release()
		}
		for _, fn := range []string{"equal", "not_equal", "lt", "lte", "gt", "gte"} {
			c, ok := kernel.NewColCompare(typ, fn)
			require.True(t, ok)
			var want, evens, narrowed []int32
			for i := range n - 3 {
				x, y := vals[0][i+3], vals[1][i+3]
				if i%2 == 0 {
					evens = append(evens, int32(i))
				}
				if x == nil || y == nil {
					continue
				}
				keep := map[string]bool{"equal": *x == *y, "not_equal": *x != *y, "lt": *x < *y, "lte": *x <= *y, "gt": *x > *y, "gte": *x >= *y}[fn]
				if keep {
					want = append(want, int32(i))
					if i%2 == 0 {
						narrowed = append(narrowed, int32(i))
					}
				}
			}
			got, ok := c.Select(arrs[0], arrs[1], nil, true)
			require.True(t, ok)
			require.Equal(t, want, nilIfEmpty(got), "%s %s", typ, fn)
			got, ok = c.Select(arrs[0], arrs[1], evens, false)
			require.True(t, ok)
			require.Equal(t, narrowed, nilIfEmpty(got), "narrowed %s %s", typ, fn)
		}
	}
	_, ok := kernel.NewColCompare(arrow.BinaryTypes.String, "lt")
	require.False(t, ok)
	c, _ := kernel.NewColCompare(arrow.PrimitiveTypes.Int64, "lt")
	i32 := array.NewInt32Builder(mem)
	defer i32.Release()
	a := i32.NewArray()
	defer a.Release()
	_, ok = c.Select(a, a, nil, true)
	require.False(t, ok, "int32 arrays for an int64 comparison")
}
