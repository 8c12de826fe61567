package kernel

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// The list aggregates list_min, list_max, list_sum and list_avg, with DuckDB's NULL
// semantics: NULL elements are skipped, and a NULL list, an empty list or a list of only
// NULLs gives NULL. planner/functions list_agg.go types them. The elements are read in
// place (no list cast: arrow-go v18.8.0's list cast leaks 64 bytes per call).

// ListMinMax is list_min(l) (list_max(l) when max): the least (greatest) non-NULL element
// of each list by DuckDB's ordering (NaN above every other float).
func ListMinMax(ctx context.Context, mem memory.Allocator, l arrow.Array, max bool) (arrow.Array, error) {
	list, err := listOf("list_min", []arrow.Array{l}, 0)
	if err != nil {
		return nil, err
	}
	vals := list.ListValues()
	if vals.DataType().ID() == arrow.NULL {
		return array.NewNull(list.Len()), nil // arrow's Take leaks over NULL arrays
	}
	compare, err := elemCompare(vals)
	if err != nil {
		return nil, err
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := range list.Len() {
		best := int64(-1)
		if IsValid(list, i) {
			lo, hi := list.ValueOffsets(i)
			for j := lo; j < hi; j++ {
				if !IsValid(vals, int(j)) {
					continue
				}
				if best < 0 {
					best = j
				} else if c := compare(int(j), int(best)); (max && c > 0) || (!max && c < 0) {
					best = j
				}
			}
		}
		if best < 0 {
			b.AppendNull()
		} else {
			b.Append(best)
		}
	}
	idx := b.NewArray()
	defer idx.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), vals, idx)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "gather list_min/list_max results")
	}
	return out, nil
}

// ListSum is list_sum(l): the sum of each list's non-NULL elements, as BIGINT over
// integers (an overflow is an Out of Range error), DOUBLE over floats and DECIMAL(38, s)
// over DECIMAL(p, s).
func ListSum(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	list, err := listOf("list_sum", args, 0)
	if err != nil {
		return nil, err
	}
	switch vals := list.ListValues(); {
	case vals.DataType().ID() == arrow.NULL:
		return array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Int64, list.Len()), nil
	case vals.DataType().ID() == arrow.DECIMAL128:
		return sumDecimals(mem, list, vals.(*array.Decimal128))
	case vals.DataType().ID() == arrow.FLOAT32 || vals.DataType().ID() == arrow.FLOAT64:
		get := floatGetter(vals)
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		return eachList(list, b, func(lo, hi int64) error {
			b.Append(sumFloats(vals, get, lo, hi))
			return nil
		})
	default:
		return sumIntegers(mem, list, vals)
	}
}

// sumIntegers sums lists of integers into BIGINT, failing on overflow.
func sumIntegers(mem memory.Allocator, list listLike, vals arrow.Array) (arrow.Array, error) {
	get, err := intGetter(vals)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_sum over %s", list.DataType())
	}
	u64, _ := vals.(*array.Uint64)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	return eachList(list, b, func(lo, hi int64) error {
		var s int64
		for j := lo; j < hi; j++ {
			if !vals.IsValid(int(j)) {
				continue
			}
			x := get(int(j))
			sum := s + x // wraps on overflow, detected below
			if (x > 0 && sum < s) || (x < 0 && sum > s) || (u64 != nil && u64.Value(int(j)) > math.MaxInt64) {
				return dberr.New(dberr.OutOfRange, "Overflow in list_sum of INT64 (%d + %v)!", s, vals.ValueStr(int(j)))
			}
			s = sum
		}
		b.Append(s)
		return nil
	})
}

// sumDecimals sums lists of DECIMAL(p, s) into DECIMAL(38, s).
func sumDecimals(mem memory.Allocator, list listLike, vals *array.Decimal128) (arrow.Array, error) {
	scale := vals.DataType().(*arrow.Decimal128Type).Scale
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: scale})
	defer b.Release()
	return eachList(list, b, func(lo, hi int64) error {
		var s decimal128.Num
		for j := lo; j < hi; j++ {
			if vals.IsValid(int(j)) {
				s = s.Add(vals.Value(int(j)))
			}
		}
		b.Append(s)
		return nil
	})
}

// ListAvg is list_avg(l): the mean of each list's non-NULL numeric elements, as DOUBLE.
func ListAvg(mem memory.Allocator, args []arrow.Array) (arrow.Array, error) {
	list, err := listOf("list_avg", args, 0)
	if err != nil {
		return nil, err
	}
	vals := list.ListValues()
	if vals.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(mem, arrow.PrimitiveTypes.Float64, list.Len()), nil
	}
	get, err := numGetter(vals)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "list_avg over %s", list.DataType())
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	return eachList(list, b, func(lo, hi int64) error {
		b.Append(sumFloats(vals, get, lo, hi) / float64(hi-lo-int64(countNulls(vals, lo, hi))))
		return nil
	})
}

// sumFloats sums the non-NULL values of vals[lo:hi] as get reads them.
func sumFloats(vals arrow.Array, get func(int) float64, lo, hi int64) float64 {
	var s float64
	for j := lo; j < hi; j++ {
		if vals.IsValid(int(j)) {
			s += get(int(j))
		}
	}
	return s
}

// countNulls counts the NULLs of vals[lo:hi].
func countNulls(vals arrow.Array, lo, hi int64) int {
	n := 0
	for j := lo; j < hi; j++ {
		if !IsValid(vals, int(j)) {
			n++
		}
	}
	return n
}

// eachList appends to b, per row of list, NULL when the list is NULL or holds no
// non-NULL element, else what agg appends for the row's element range.
func eachList(list listLike, b array.Builder, agg func(lo, hi int64) error) (arrow.Array, error) {
	vals := list.ListValues()
	for i := range list.Len() {
		if !IsValid(list, i) {
			b.AppendNull()
			continue
		}
		lo, hi := list.ValueOffsets(i)
		if countNulls(vals, lo, hi) == int(hi-lo) {
			b.AppendNull()
			continue
		}
		if err := agg(lo, hi); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}
