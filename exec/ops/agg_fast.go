package ops

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/flightd/flightd/exec/kernel"
)

// Typed loops for the common accumulator updates: no per-row closures and no per-row
// validity calls. They apply when the argument has no NULLs; rows are skipped by the include
// mask (a fused filter, FILTER or DISTINCT), whose test is the only branch; the general
// loops handle the rest.

// updateFast folds arg into the sums when the fast path applies; ok is false otherwise.
func (s *sumAcc) updateFast(groups []int32, arg arrow.Array, include []bool) bool {
	if arg.NullN() != 0 || len(groups) != arg.Len() {
		return false
	}
	if include != nil {
		return s.updateMasked(groups, arg, include)
	}
	switch {
	case s.kind == kindDecimal:
		sumDecimals(s.ints, s.counts, groups, arrow.GetValues[decimal128.Num](arg.Data(), 1))
	case s.kind == kindSigned && arg.DataType().ID() == arrow.INT64:
		sumInts(s.ints, s.counts, groups, arrow.GetValues[int64](arg.Data(), 1))
	case s.kind == kindSigned && arg.DataType().ID() == arrow.INT32:
		sumInts(s.ints, s.counts, groups, arrow.GetValues[int32](arg.Data(), 1))
	case s.kind == kindFloat && arg.DataType().ID() == arrow.FLOAT64:
		sumFloats(s.floats, s.counts, groups, arrow.GetValues[float64](arg.Data(), 1))
	default:
		return false
	}
	return true
}

// allZero reports whether every group is 0 (an aggregate without GROUP BY).
func allZero(groups []int32) bool {
	for _, g := range groups {
		if g != 0 {
			return false
		}
	}
	return true
}

func sumDecimals(sums []kernel.Int128, counts []int64, groups []int32, vs []decimal128.Num) {
	if allZero(groups) {
		acc := sums[0]
		for _, v := range vs {
			acc = acc.Add(kernel.Int128{Hi: v.HighBits(), Lo: v.LowBits()})
		}
		sums[0] = acc
		counts[0] += int64(len(vs))
		return
	}
	for i, g := range groups {
		v := vs[i]
		sums[g] = sums[g].Add(kernel.Int128{Hi: v.HighBits(), Lo: v.LowBits()})
		counts[g]++
	}
}

func sumInts[T int32 | int64](sums []kernel.Int128, counts []int64, groups []int32, vs []T) {
	for i, g := range groups {
		sums[g] = sums[g].AddInt64(int64(vs[i]))
		counts[g]++
	}
}

func sumFloats(sums []float64, counts []int64, groups []int32, vs []float64) {
	for i, g := range groups {
		sums[g] += vs[i]
		counts[g]++
	}
}

// updateFast counts every included row of each group when the fast path applies (count(*)
// or an argument without NULLs); ok is false otherwise.
func (c *countAcc) updateFast(groups []int32, arg arrow.Array, include []bool) bool {
	if !c.star && (arg == nil || arg.NullN() != 0) {
		return false
	}
	if include != nil {
		for i, g := range groups {
			if include[i] {
				c.counts[g]++
			}
		}
		return true
	}
	if allZero(groups) {
		c.counts[0] += int64(len(groups))
		return true
	}
	for _, g := range groups {
		c.counts[g]++
	}
	return true
}

// updateMasked is updateFast for the rows set in include.
func (s *sumAcc) updateMasked(groups []int32, arg arrow.Array, include []bool) bool {
	switch {
	case s.kind == kindDecimal:
		vs := arrow.GetValues[decimal128.Num](arg.Data(), 1)
		for i, g := range groups {
			if include[i] {
				v := vs[i]
				s.ints[g] = s.ints[g].Add(kernel.Int128{Hi: v.HighBits(), Lo: v.LowBits()})
				s.counts[g]++
			}
		}
	case s.kind == kindSigned && arg.DataType().ID() == arrow.INT64:
		sumIntsMasked(s.ints, s.counts, groups, arrow.GetValues[int64](arg.Data(), 1), include)
	case s.kind == kindSigned && arg.DataType().ID() == arrow.INT32:
		sumIntsMasked(s.ints, s.counts, groups, arrow.GetValues[int32](arg.Data(), 1), include)
	case s.kind == kindFloat && arg.DataType().ID() == arrow.FLOAT64:
		vs := arrow.GetValues[float64](arg.Data(), 1)
		for i, g := range groups {
			if include[i] {
				s.floats[g] += vs[i]
				s.counts[g]++
			}
		}
	default:
		return false
	}
	return true
}

func sumIntsMasked[T int32 | int64](sums []kernel.Int128, counts []int64, groups []int32, vs []T, include []bool) {
	for i, g := range groups {
		if include[i] {
			sums[g] = sums[g].AddInt64(int64(vs[i]))
			counts[g]++
		}
	}
}
