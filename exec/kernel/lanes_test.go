package kernel_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
)

// TestDecimalLanes: decimal128 values become int64 lanes with their largest magnitude;
// a value beyond int64 (either sign) is reported.
func TestDecimalLanes(t *testing.T) {
	cases := []struct {
		name string
		in   []decimal128.Num
		want []int64
		max  uint64
		ok   bool
	}{
		{"small", []decimal128.Num{decimal128.FromI64(3), decimal128.FromI64(-7), decimal128.FromI64(0)}, []int64{3, -7, 0}, 7, true},
		{"int64-ends", []decimal128.Num{decimal128.FromI64(math.MaxInt64), decimal128.FromI64(math.MinInt64)},
			[]int64{math.MaxInt64, math.MinInt64}, 1 << 63, true},
		{"beyond", []decimal128.Num{decimal128.FromI64(1), decimal128.FromU64(1 << 63)}, nil, 0, false},
		{"beyond-negative", []decimal128.Num{decimal128.FromI64(math.MinInt64).Sub(decimal128.FromI64(1))}, nil, 0, false},
		{"empty", nil, []int64{}, 0, true},
		{"non-negative", []decimal128.Num{decimal128.FromI64(5), decimal128.FromI64(2), decimal128.FromI64(4),
			decimal128.FromI64(1), decimal128.FromI64(0)}, []int64{5, 2, 4, 1, 0}, 5, true},
		{"non-negative-top", []decimal128.Num{decimal128.FromI64(1 << 62), decimal128.FromI64(math.MaxInt64)},
			[]int64{1 << 62, math.MaxInt64}, math.MaxInt64, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, m, ok := kernel.DecimalLanes(make([]int64, 1), c.in)
			require.Equal(t, c.ok, ok)
			if c.ok {
				require.Equal(t, c.want, got)
				requireLaneBound(t, c.max, m)
			}
		})
	}
}

// requireLaneBound checks DecimalLanes' bound: at least the largest magnitude, with the
// same highest set bit (so below twice it).
func requireLaneBound(t *testing.T, largest, bound uint64, msg ...any) {
	t.Helper()
	require.GreaterOrEqual(t, bound, largest, msg...)
	require.Equal(t, bits.Len64(largest), bits.Len64(bound), msg...)
}

// TestLaneKernels: linear combinations and products of vectors and constants, and the
// bounds that guard them.
func TestLaneKernels(t *testing.T) {
	a, b := []int64{1, -2, 30}, []int64{4, 5, -6}
	vec := func(v []int64) kernel.Lane { return kernel.Lane{Vals: v} }
	cst := func(c int64) kernel.Lane { return kernel.Lane{Const: c} }
	require.Equal(t, []int64{5, 3, 24}, kernel.LaneLinear(nil, 3, vec(a), 1, vec(b), 1))
	require.Equal(t, []int64{6, -25, 306}, kernel.LaneLinear(nil, 3, vec(a), 10, vec(b), -1))
	require.Equal(t, []int64{96, 95, 106}, kernel.LaneLinear(nil, 3, cst(10), 10, vec(b), -1))
	require.Equal(t, []int64{-10, 20, -300}, kernel.LaneLinear(make([]int64, 5), 3, vec(a), -10, cst(0), 1))
	require.Equal(t, []int64{4, -10, -180}, kernel.LaneMul(nil, 3, vec(a), vec(b)))
	require.Equal(t, []int64{-3, 6, -90}, kernel.LaneMul(nil, 3, cst(-3), vec(a)))
	require.Equal(t, []int64{-3, 6, -90}, kernel.LaneMul(nil, 3, vec(a), cst(-3)))
	m, ok := kernel.LaneMulBound(1<<31, 1<<31)
	require.True(t, ok)
	require.Equal(t, uint64(1<<62), m)
	_, ok = kernel.LaneMulBound(1<<32, 1<<31)
	require.False(t, ok, "2^63")
	_, ok = kernel.LaneMulBound(1<<40, 1<<40)
	require.False(t, ok, "beyond 64 bits")
	s, ok := kernel.LaneAddBound(1<<62, 1<<62-1)
	require.True(t, ok)
	require.Equal(t, uint64(1<<63-1), s)
	_, ok = kernel.LaneAddBound(1<<62, 1<<62)
	require.False(t, ok, "2^63")
	_, ok = kernel.LaneAddBound(math.MaxUint64, 1)
	require.False(t, ok, "carry")
}

// TestDecimalLanesRandom: the conversion agrees with a row-by-row reference on
// random values of every length (tails of 0-3 rows), with a value beyond int64 at any
// position reported.
func TestDecimalLanesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 1000} {
		for _, scale := range []int64{10, 1 << 40, math.MaxInt64} {
			in := make([]decimal128.Num, n)
			want := make([]int64, n)
			var wantMax uint64
			for i := range in {
				v := r.Int64N(scale)
				if r.IntN(2) == 0 {
					v = -v
				}
				in[i], want[i] = decimal128.FromI64(v), v
				wantMax = max(wantMax, uint64(max(v, -v)))
			}
			got, m, ok := kernel.DecimalLanes(nil, in)
			require.True(t, ok)
			require.Equal(t, want, got)
			requireLaneBound(t, wantMax, m, "n=%d", n)
			pos := r.IntN(n)
			saved := in[pos]
			in[pos] = decimal128.FromU64(1 << 63)
			_, _, ok = kernel.DecimalLanes(got, in)
			require.False(t, ok, "n=%d beyond int64 at %d", n, pos)
			in[pos] = decimal128.FromI64(math.MinInt64).Sub(decimal128.FromI64(1))
			_, _, ok = kernel.DecimalLanes(got, in)
			require.False(t, ok, "n=%d below int64 at %d", n, pos)
			in[pos] = saved
		}
	}
}

// TestDecimalLanesBlocks: over several blocks of non-negative values, one negative value
// (anywhere: first block, a later one, the tail) hands the rest to the signed loop with the
// same result as a row-by-row reference, and a value beyond int64 (2^63, high word zero, or
// below -2^63) is reported wherever it is.
func TestDecimalLanesBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1023, 1024, 1025, 2048, 3001} {
		for _, pos := range []int{-1, 0, 1, 1023, 1024, n / 2, n - 1} {
			if pos >= n {
				continue
			}
			in := make([]decimal128.Num, n)
			want := make([]int64, n)
			var wantMax uint64
			for i := range in {
				v := r.Int64N(1 << 40)
				if i == pos || (pos >= 0 && i > pos && r.IntN(4) == 0) {
					v = -v - 1 // negative from pos on, sometimes
				}
				in[i], want[i] = decimal128.FromI64(v), v
				wantMax = max(wantMax, uint64(max(v, -v)))
			}
			got, m, ok := kernel.DecimalLanes(make([]int64, 7), in)
			require.True(t, ok)
			require.Equal(t, want, got, "n=%d pos=%d", n, pos)
			requireLaneBound(t, wantMax, m, "n=%d pos=%d", n, pos)
			if pos < 0 {
				continue
			}
			saved := in[pos]
			for _, huge := range []decimal128.Num{decimal128.FromU64(1 << 63), decimal128.FromI64(math.MinInt64).Sub(decimal128.FromI64(1))} {
				in[pos] = huge
				_, _, ok = kernel.DecimalLanes(got, in)
				require.False(t, ok, "n=%d beyond int64 at %d", n, pos)
			}
			in[pos] = saved
		}
	}
}

// BenchmarkDecimalLanes: `go test -run '^$' -bench DecimalLanes ./exec/kernel/`.
func BenchmarkDecimalLanes(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	in := make([]decimal128.Num, 16<<10)
	for i := range in {
		in[i] = decimal128.FromI64(r.Int64N(10000000))
	}
	dst := make([]int64, len(in))
	b.SetBytes(int64(len(in)) * 16)
	for b.Loop() {
		dst, _, _ = kernel.DecimalLanes(dst, in)
	}
}

// TestLaneMulLinear: the fused product of a vector or constant with a linear combination
// equals LaneMul over LaneLinear, for every mix of vector and constant operands.
func TestLaneMulLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 37
	vec := func() kernel.Lane {
		v := make([]int64, n)
		for i := range v {
			v[i] = r.Int64N(2001) - 1000
		}
		return kernel.Lane{Vals: v}
	}
	cst := func() kernel.Lane { return kernel.Lane{Const: r.Int64N(2001) - 1000} }
	for _, c := range []struct {
		name    string
		x, a, b kernel.Lane
	}{
		{"vec*(const+vec)", vec(), cst(), vec()},
		{"vec*(vec+const)", vec(), vec(), cst()},
		{"vec*(vec+vec)", vec(), vec(), vec()},
		{"const*(const+vec)", cst(), cst(), vec()},
		{"const*(vec+vec)", cst(), vec(), vec()},
	} {
		for _, m := range [][2]int64{{1, 1}, {10, -1}, {1, -100}, {1, -1}, {-10, 1}, {100, 7}} {
			lin := kernel.LaneLinear(nil, n, c.a, m[0], c.b, m[1])
			want := kernel.LaneMul(nil, n, c.x, kernel.Lane{Vals: lin})
			got := kernel.LaneMulLinear(make([]int64, 3), n, c.x, c.a, m[0], c.b, m[1])
			require.Equal(t, want, got, "%s ma=%d mb=%d", c.name, m[0], m[1])
		}
	}
}
