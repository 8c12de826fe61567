package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestFastKeyComparator: on columns without NULLs (whole and sliced, strings with a
// nonzero first offset), the fast comparator orders every pair of rows as the general one
// does, both directions; columns with NULLs and other types take the general path.
func TestFastKeyComparator(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(5, 9))
	words := []string{"", "a", "ab", "abc", "b", "Brand#13", "Brand#45", "ECONOMY", "é", "zz"}
	build := func(kind string, n int, nulls bool) arrow.Array {
		var b array.Builder
		switch kind {
		case "int64":
			b = array.NewInt64Builder(mem)
		case "int32":
			b = array.NewInt32Builder(mem)
		case "date32":
			b = array.NewDate32Builder(mem)
		default:
			b = array.NewStringBuilder(mem)
		}
		defer b.Release()
		for range n {
			if nulls && rng.IntN(5) == 0 {
				b.AppendNull()
				continue
			}
			v := rng.IntN(21) - 10
			switch bb := b.(type) {
			case *array.Int64Builder:
				bb.Append(int64(v) << 40)
			case *array.Int32Builder:
				bb.Append(int32(v))
			case *array.Date32Builder:
				bb.Append(arrow.Date32(v))
			case *array.StringBuilder:
				bb.Append(words[rng.IntN(len(words))])
			}
		}
		return b.NewArray()
	}
	for _, kind := range []string{"int64", "int32", "date32", "string"} {
		for _, nulls := range []bool{false, true} {
			for _, sliced := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/nulls=%v/sliced=%v", kind, nulls, sliced), func(t *testing.T) {
					arr := build(kind, 120, nulls)
					defer arr.Release()
					if sliced {
						s := array.NewSlice(arr, 17, 101)
						defer s.Release()
						arr = s
					}
					for _, desc := range []bool{false, true} {
						fast := fastKeyComparator(arr, desc)
						require.Equal(t, !nulls || arr.NullN() == 0, fast != nil)
						if fast == nil {
							continue
						}
						values, err := valueComparator(arr)
						require.NoError(t, err)
						for i := range arr.Len() {
							for j := range arr.Len() {
								want := values(i, j)
								if desc {
									want = -want
								}
								require.Equal(t, want, fast(i, j), "rows %d, %d", i, j)
							}
						}
						general, err := keyComparator(arr, plan.SortKey{Descending: desc})
						require.NoError(t, err)
						require.Equal(t, sign(general(3, 7)), sign(fast(3, 7)))
					}
				})
			}
		}
	}
}

func sign(x int) int { return max(-1, min(1, x)) }
