package kernel

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Int64 lanes: decimal values as plain int64s in steps of their scale, for arithmetic whose
// every intermediate value has been proven to fit int64 beforehand (from the operands'
// largest magnitudes, LaneMulBound and LaneAddBound), so that the loops carry no per-row
// overflow test. A lane operand is a vector or a constant (Lane).

// Lane is one operand of a lane kernel: Vals, or the constant Const when Vals is nil.
type Lane struct {
	Vals  []int64
	Const int64
}

// DecimalLanes writes every slot of vals (NULL or not) into dst, resized to len(vals), as
// int64s, and returns dst with the largest magnitude among them; ok is false when some
// value does not fit int64.
func DecimalLanes(dst []int64, vals []decimal128.Num) (out []int64, maxAbs uint64, ok bool) {
	dst = growInt64(dst, len(vals))
	var bad int64
	var hiAbs uint64
	for i, v := range vals {
		lo := int64(v.LowBits())
		sign := lo >> 63
		bad |= v.HighBits() ^ sign
		dst[i] = lo
		hiAbs = max(hiAbs, uint64((lo^sign)-sign))
	}
	return dst, hiAbs, bad == 0
}

// LaneMulBound returns the largest magnitude of a product of operands of magnitudes at most
// a and b, and whether it is below 2^63.
func LaneMulBound(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0 && lo < 1<<63
}

// LaneAddBound returns the largest magnitude of a sum of operands of magnitudes at most a and
// b, and whether it is below 2^63.
func LaneAddBound(a, b uint64) (uint64, bool) {
	s, carry := bits.Add64(a, b, 0)
	return s, carry == 0 && s < 1<<63
}

// LaneLinear sets dst[i] = a[i]*ma + b[i]*mb for i < n (dst resized to n); the caller has
// proven that nothing overflows. a or b may be a constant, not both.
func LaneLinear(dst []int64, n int, a Lane, ma int64, b Lane, mb int64) []int64 {
	dst = growInt64(dst, n)
	switch {
	case a.Vals == nil:
		c := a.Const * ma
		bv := b.Vals[:n]
		for i, v := range bv {
			dst[i] = c + v*mb
		}
	case b.Vals == nil:
		c := b.Const * mb
		av := a.Vals[:n]
		for i, v := range av {
			dst[i] = v*ma + c
		}
	case ma == 1 && mb == 1:
		av, bv := a.Vals[:n], b.Vals[:n]
		for i := range dst {
			dst[i] = av[i] + bv[i]
		}
	default:
		av, bv := a.Vals[:n], b.Vals[:n]
		for i := range dst {
			dst[i] = av[i]*ma + bv[i]*mb
		}
	}
	return dst
}

// LaneMul sets dst[i] = a[i]*b[i] for i < n (dst resized to n); the caller has proven that
// nothing overflows. a or b may be a constant, not both.
func LaneMul(dst []int64, n int, a, b Lane) []int64 {
	dst = growInt64(dst, n)
	if a.Vals == nil {
		a, b = b, a
	}
	av := a.Vals[:n]
	if b.Vals == nil {
		c := b.Const
		for i, v := range av {
			dst[i] = v * c
		}
		return dst
	}
	bv := b.Vals[:n]
	for i := range dst {
		dst[i] = av[i] * bv[i]
	}
	return dst
}

// LaneMulLinear sets dst[i] = x[i] * (a[i]*ma + b[i]*mb) for i < n (dst resized to n):
// LaneMul of x and LaneLinear of a and b in one pass; the caller has proven that neither the
// linear combination nor the product overflows. x may be a constant; a or b may be a
// constant, not both.
func LaneMulLinear(dst []int64, n int, x, a Lane, ma int64, b Lane, mb int64) []int64 {
	if x.Vals == nil {
		dst = LaneLinear(dst, n, a, ma, b, mb)
		for i, v := range dst {
			dst[i] = v * x.Const
		}
		return dst
	}
	dst = growInt64(dst, n)
	xv := x.Vals[:n]
	switch {
	case a.Vals == nil:
		c := a.Const * ma
		bv := b.Vals[:n]
		for i, v := range xv {
			dst[i] = v * (c + bv[i]*mb)
		}
	case b.Vals == nil:
		c := b.Const * mb
		av := a.Vals[:n]
		for i, v := range xv {
			dst[i] = v * (av[i]*ma + c)
		}
	default:
		av, bv := a.Vals[:n], b.Vals[:n]
		for i, v := range xv {
			dst[i] = v * (av[i]*ma + bv[i]*mb)
		}
	}
	return dst
}

func growInt64(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}
