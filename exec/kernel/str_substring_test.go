package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// randSubstrString returns a random string of 0..8 characters, ASCII or mixed.
func randSubstrString(r *rand.Rand, ascii bool) string {
	alphabet := []string{"a", "b", "Z", "1", " "}
	if !ascii {
		alphabet = append(alphabet, "é", "ß", "🦆", "中")
	}
	var sb strings.Builder
	for range r.IntN(9) {
		sb.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return sb.String()
}

// randSubstrInt returns a start or length: small, zero, negative or huge.
func randSubstrInt(r *rand.Rand) int64 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.MaxInt32
	case 2:
		return math.MinInt32
	case 3:
		return int64(r.IntN(1000) - 500)
	}
	return int64(r.IntN(21) - 10)
}

// buildSubstrArgs builds n rows of (string, start, length) with NULLs at rate nullPct%.
func buildSubstrArgs(mem memory.Allocator, r *rand.Rand, n, nullPct int, ascii, large bool) []arrow.Array {
	var sb array.Builder = array.NewStringBuilder(mem)
	if large {
		sb = array.NewLargeStringBuilder(mem)
	}
	st, ln := array.NewInt64Builder(mem), array.NewInt32Builder(mem)
	defer sb.Release()
	defer st.Release()
	defer ln.Release()
	for range n {
		if r.IntN(100) < nullPct {
			sb.AppendNull()
		} else if large {
			sb.(*array.LargeStringBuilder).Append(randSubstrString(r, ascii))
		} else {
			sb.(*array.StringBuilder).Append(randSubstrString(r, ascii))
		}
		if r.IntN(100) < nullPct/2 {
			st.AppendNull()
		} else {
			st.Append(randSubstrInt(r))
		}
		if r.IntN(100) < nullPct/2 {
			ln.AppendNull()
		} else {
			ln.Append(int32(randSubstrInt(r)))
		}
	}
	return []arrow.Array{sb.NewArray(), st.NewArray(), ln.NewArray()}
}

func TestSubstringDirectMatchesRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 64, 1000} {
		for _, nullPct := range []int{0, 20} {
			for _, ascii := range []bool{true, false} {
				for _, large := range []bool{false, true} {
					name := fmt.Sprintf("n%d/null%d/ascii%v/large%v", n, nullPct, ascii, large)
					t.Run(name, func(t *testing.T) {
						args := buildSubstrArgs(mem, r, n, nullPct, ascii, large)
						defer releaseAll(args)
						lo := r.IntN(n)
						hi := lo + r.IntN(n-lo+1)
						for _, sl := range [][2]int{{0, n}, {lo, hi}} {
							sliced := make([]arrow.Array, 3)
							for i, a := range args {
								sliced[i] = array.NewSlice(a, int64(sl[0]), int64(sl[1]))
							}
							for _, k := range []int{2, 3} {
								checkSubstringSame(t, mem, sliced[:k])
							}
							releaseAll(sliced)
						}
					})
				}
			}
		}
	}
}

// checkSubstringSame requires substringFunc and substringRows to agree on args, and the
// direct path to be taken for non-empty input.
func checkSubstringSame(t *testing.T, mem memory.Allocator, args []arrow.Array) {
	t.Helper()
	want, err := substringRows(mem, args)
	require.NoError(t, err)
	defer want.Release()
	direct, ok, err := substringDirect(mem, args)
	require.NoError(t, err)
	require.Equal(t, args[0].Len() > 0, ok, "direct path taken for non-empty utf8 input")
	if ok {
		defer direct.Release()
		require.Equal(t, want.NullN(), direct.NullN())
		for i := range want.Len() {
			require.Equal(t, want.IsNull(i), direct.IsNull(i), "row %d null", i)
			require.Equal(t, want.(*array.String).Value(i), direct.(*array.String).Value(i), "row %d", i)
		}
		require.True(t, array.Equal(want, direct))
	}
	got, err := substringFunc(mem, args)
	require.NoError(t, err)
	defer got.Release()
	require.True(t, array.Equal(want, got))
}

func TestSubstringDirectKnownValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		s             string
		start, length int64
		want          string
	}{
		{"hello", 0, 2, "h"}, {"hello", -3, 2, "ll"}, {"hello", 2, 100, "ello"},
		{"hello", 3, -2, "he"}, {"hello", -10, 7, "he"}, {"héllo", 2, 2, "él"},
		{"", 1, 2, ""}, {"13-555", 1, 2, "13"}, {"hello", 6, 1, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d/%d", c.s, c.start, c.length), func(t *testing.T) {
			args := []arrow.Array{strArray(mem, c.s), int64Array(mem, c.start), int64Array(mem, c.length)}
			defer releaseAll(args)
			out, err := substringFunc(mem, args)
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, c.want, out.(*array.String).Value(0))
		})
	}
}

func strArray(mem memory.Allocator, s string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Append(s)
	return b.NewArray()
}

func int64Array(mem memory.Allocator, v int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Append(v)
	return b.NewArray()
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// BenchmarkSubstring compares the direct and per-row paths on q22-like phone numbers.
func BenchmarkSubstring(b *testing.B) {
	mem := memory.NewGoAllocator()
	const n = 8192
	sb, st, ln := array.NewStringBuilder(mem), array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	for i := range n {
		sb.Append(fmt.Sprintf("%02d-%03d-%03d-%04d", 10+i%25, i%1000, i%997, i%9973))
		st.Append(1)
		ln.Append(2)
	}
	args := []arrow.Array{sb.NewArray(), st.NewArray(), ln.NewArray()}
	defer releaseAll(args)
	for _, path := range []struct {
		name string
		fn   ScalarFunc
	}{{"direct", substringFunc}, {"rows", substringRows}} {
		b.Run(path.name, func(b *testing.B) {
			for b.Loop() {
				out, err := path.fn(mem, args)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
}
