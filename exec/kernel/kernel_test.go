package kernel_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

func TestLikeMatcher(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"abc", "abc", true},
		{"abc", "abcd", false},
		{"a%", "a", true},
		{"a%", "ba", false},
		{"%c", "abc", true},
		{"%b%", "abc", true},
		{"%b%", "ac", false},
		{"a_c", "abc", true},
		{"a_c", "ac", false},
		{"a_c", "aéc", true}, // _ is one code point, not one byte
		{"%", "", true},
		{"_", "", false},
		{"a%b%c", "aXXbYYc", true},
		{"a%b%c", "aXXbYY", false},
		{"%a%a%", "banana", true},
		{"%ana", "banana", true},
		{"b%n_", "banana", true},
		{"b%n_", "banan", false},
		{"a\\%", "a%", false}, // no escape character: the backslash is literal
		{"a\\%", "a\\xyz", true},
		{"%%", "x", true},
		{"A", "a", false}, // case-sensitive
	}
	for _, c := range cases {
		t.Run(c.pattern+"~"+c.s, func(t *testing.T) {
			require.Equal(t, c.want, kernel.NewLikeMatcher(c.pattern).Match(c.s))
		})
	}
}

func TestInt128(t *testing.T) {
	cases := []struct {
		name    string
		adds    []int64
		want    float64
		fits    bool
		wantI64 int64
	}{
		{"small", []int64{1, 2, -5}, -2, true, -2},
		{"past-max", []int64{math.MaxInt64, 1}, 9223372036854775808, false, 0},
		{"back-in-range", []int64{math.MaxInt64, 1, -2}, math.MaxInt64 - 1, true, math.MaxInt64 - 1},
		{"below-min", []int64{math.MinInt64, -1}, -9223372036854775809, false, 0},
		{"min", []int64{math.MinInt64}, math.MinInt64, true, math.MinInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var x kernel.Int128
			for _, v := range c.adds {
				x = x.AddInt64(v)
			}
			require.InDelta(t, c.want, x.Float64(), 1)
			v, ok := x.Int64()
			require.Equal(t, c.fits, ok)
			if ok {
				require.Equal(t, c.wantI64, v)
			}
		})
	}
	require.Equal(t, "18446744073709551616", kernel.Int128{}.AddUint64(math.MaxUint64).AddUint64(1).Decimal128().BigInt().String())
}

func TestKeyEncoder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	fb.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN(), -math.NaN(), 1.5, 0}, []bool{true, true, true, true, true, false})
	fa := fb.NewArray()
	defer fa.Release()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"ab", "a", "", "", "b", "x"}, []bool{true, true, true, false, true, true})
	sa := sb.NewArray()
	defer sa.Release()

	enc := func(arrs ...arrow.Array) []string {
		encs := make([]kernel.KeyEncoder, len(arrs))
		for i, a := range arrs {
			e, err := kernel.NewKeyEncoder(a)
			require.NoError(t, err)
			encs[i] = e
		}
		out := make([]string, arrs[0].Len())
		for r := range out {
			var buf []byte
			for _, e := range encs {
				buf = e(buf, r)
			}
			out[r] = string(buf)
		}
		return out
	}
	f := enc(fa)
	require.Equal(t, f[0], f[1], "-0 and 0 group together")
	require.Equal(t, f[2], f[3], "NaNs group together")
	require.NotEqual(t, f[0], f[5], "NULL is not 0")
	require.NotEqual(t, f[0], f[4])
	s := enc(sa)
	require.NotEqual(t, s[2], s[3], "empty string is not NULL")
	// Self-delimiting: ("ab", x) and ("a", "b"+x) must differ.
	pair := enc(sa, sa)
	require.Len(t, map[string]bool{pair[0]: true, pair[1]: true, pair[2]: true, pair[3]: true, pair[4]: true, pair[5]: true}, 6)
}

func TestDivideModulus(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mk := func(vals []int32, valid []bool) arrow.Array {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues(vals, valid)
		return b.NewArray()
	}
	a := mk([]int32{7, -7, 7, math.MinInt32, 5}, []bool{true, true, true, true, false})
	defer a.Release()
	b := mk([]int32{2, 2, -2, 1, 0}, nil)
	defer b.Release()
	q, err := kernel.Divide(mem, a, b)
	require.NoError(t, err) // 5 // 0 is NULL // 0: NULL dividend, no error
	defer q.Release()
	require.Equal(t, "[3 -3 -3 -2147483648 (null)]", q.String())
	r, err := kernel.Modulus(mem, a, b)
	require.NoError(t, err)
	defer r.Release()
	require.Equal(t, "[1 -1 1 0 (null)]", r.String())
}
