package lancecat

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
)

// The binder turns `c BETWEEN a AND b` (and `c >= a AND c < b`) into two comparisons, and
// an index answers each alone: on a BTree, `c >= a` reads every page above a and `c < b`
// every page below b, i.e. the whole index, to intersect two halves of the table. Merging a
// lower and an upper bound on the same column into one BETWEEN reads only the pages of the
// range (10M rows, 1% range: 80 MB of index pages → 1.6 MB).

// mergeRanges returns the conjuncts of an AND with, per column, its first lower bound (>,
// >=) and first upper bound (<, <=) replaced by one BETWEEN. The result is exact: a strict
// bound is made inclusive only for integer-like values (c > 5 is c >= 6); other strict
// bounds stay separate comparisons. colType is the type of a column (nil if unknown): a
// strict bound is adjusted only when its value has exactly the column's type.
func mergeRanges(args []*catalog.IndexExpr, colType func(int) arrow.DataType) []*catalog.IndexExpr {
	lower, upper := map[int]int{}, map[int]int{}
	for i, a := range args {
		if a.Kind != catalog.IndexPred || len(a.Values) != 1 {
			continue
		}
		switch a.Op {
		case catalog.IndexGt, catalog.IndexGe:
			if _, ok := lower[a.Column]; !ok {
				lower[a.Column] = i
			}
		case catalog.IndexLt, catalog.IndexLe:
			if _, ok := upper[a.Column]; !ok {
				upper[a.Column] = i
			}
		}
	}
	merged, skip := map[int]*catalog.IndexExpr{}, map[int]bool{}
	for col, li := range lower {
		ui, ok := upper[col]
		if !ok {
			continue
		}
		typ := colType(col)
		lo, okLo := inclusiveBound(args[li].Values[0], args[li].Op == catalog.IndexGt, +1, typ)
		hi, okHi := inclusiveBound(args[ui].Values[0], args[ui].Op == catalog.IndexLt, -1, typ)
		if !okLo || !okHi {
			continue
		}
		merged[li] = &catalog.IndexExpr{Kind: catalog.IndexPred, Column: col, Op: catalog.IndexBetween,
			Values: []scalar.Scalar{lo, hi}}
		skip[ui] = true
	}
	if len(merged) == 0 {
		return args
	}
	out := make([]*catalog.IndexExpr, 0, len(args)-len(skip))
	for i, a := range args {
		switch {
		case skip[i]:
		case merged[i] != nil:
			out = append(out, merged[i])
		default:
			out = append(out, a)
		}
	}
	return out
}

// inclusiveBound returns s as an inclusive bound: s itself when the bound is inclusive, else
// s+step for integer-like values of the column's type col (ok false for other types, for
// nulls, and on overflow).
func inclusiveBound(s scalar.Scalar, strict bool, step int64, col arrow.DataType) (scalar.Scalar, bool) {
	if !strict {
		return s, true
	}
	if s == nil || !s.IsValid() || col == nil || !arrow.TypeEqual(s.DataType(), col) {
		return nil, false
	}
	switch v := s.(type) {
	case *scalar.Int64:
		n, ok := addInt(v.Value, step, math.MinInt64, math.MaxInt64)
		return scalar.NewInt64Scalar(n), ok
	case *scalar.Int32:
		n, ok := addInt(int64(v.Value), step, math.MinInt32, math.MaxInt32)
		return scalar.NewInt32Scalar(int32(n)), ok
	case *scalar.Int16:
		n, ok := addInt(int64(v.Value), step, math.MinInt16, math.MaxInt16)
		return scalar.NewInt16Scalar(int16(n)), ok
	case *scalar.Int8:
		n, ok := addInt(int64(v.Value), step, math.MinInt8, math.MaxInt8)
		return scalar.NewInt8Scalar(int8(n)), ok
	case *scalar.Date32:
		n, ok := addInt(int64(v.Value), step, math.MinInt32, math.MaxInt32)
		return scalar.NewDate32Scalar(arrow.Date32(n)), ok
	case *scalar.Timestamp:
		n, ok := addInt(int64(v.Value), step, math.MinInt64, math.MaxInt64)
		return scalar.NewTimestampScalar(arrow.Timestamp(n), v.Type), ok
	}
	return nil, false
}

// addInt returns n+step when it stays within [lo, hi].
func addInt(n, step, lo, hi int64) (int64, bool) {
	if (step > 0 && n > hi-step) || (step < 0 && n < lo-step) {
		return 0, false
	}
	return n + step, true
}

// columnType is the Arrow type of the table's column col (nil when out of range).
func (ev *evaluator) columnType(col int) arrow.DataType {
	if col < 0 || col >= len(ev.t.schema.Fields) {
		return nil
	}
	return ev.t.schema.Fields[col].Type
}
