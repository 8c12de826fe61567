package ops

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// accumulator holds one aggregate's state for every group.
type accumulator interface {
	// resize makes room for n groups (n only grows).
	resize(n int)
	// update folds in the rows of arg (nil for count(*)) with include[i] set (include nil:
	// every row), row i going to group groups[i]. NULL values are skipped.
	update(groups []int32, arg arrow.Array, include []bool) error
	// finish returns one value per group, of type dt.
	finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error)
}

// newAccumulator returns the state for call, whose argument (if any) has type argType;
// accumulators that keep argument values allocate them from mem.
func newAccumulator(call plan.AggCall, argType arrow.DataType, mem memory.Allocator) (accumulator, error) {
	switch call.Func {
	case "count", "count_star":
		return &countAcc{star: len(call.Args) == 0}, nil
	case "single_value":
		return newSingle(argType, mem), nil
	case "stddev_samp", "stddev_pop", "stddev", "var_samp", "var_pop", "variance",
		"bool_and", "bool_or", "string_agg", "first", "last", "any_value", "list", "array_agg", "approx_count_distinct":
		return newMoreAccumulator(call, argType, mem)
	case "median", "quantile_cont", "quantile_disc", "mode", "arg_max", "arg_min":
		return newOrderStatAcc(call, argType, mem) // agg_quantile.go
	case "sum", "avg", "min", "max":
		if argType.ID() == arrow.NULL {
			return &nullAcc{}, nil
		}
	}
	switch call.Func {
	case "sum", "avg":
		k, ok := kindOf(argType)
		if !ok || k == kindString || k == kindBool || argType.ID() != arrow.DECIMAL128 && !arrow.IsInteger(argType.ID()) && !arrow.IsFloating(argType.ID()) {
			return nil, dberr.NotSupported(call.Func + " of " + argType.String())
		}
		return &sumAcc{kind: k, avg: call.Func == "avg", scale: decimalScale(argType)}, nil
	case "min", "max":
		if kernel.IsNested(argType) {
			return newNestedMinMax(argType, call.Func == "max", mem), nil // agg_minmax_nested.go
		}
		return newMinMax(argType, call.Func == "max")
	}
	return nil, dberr.NotSupported("aggregate function " + call.Func)
}

func decimalScale(dt arrow.DataType) int32 {
	if d, ok := dt.(*arrow.Decimal128Type); ok {
		return d.Scale
	}
	return 0
}

// nullAcc is an aggregate over a NULL-typed argument: every group's result is NULL.
type nullAcc struct{ n int }

func (a *nullAcc) resize(n int) { a.n = max(a.n, n) }

func (a *nullAcc) update([]int32, arrow.Array, []bool) error { return nil }

func (a *nullAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	return kernel.ArrayOfNull(mem, dt, a.n), nil
}

// countAcc is count(*) (star) or count(x).
type countAcc struct {
	star   bool
	counts []int64
}

func (c *countAcc) resize(n int) { c.counts = grow(c.counts, n) }

func (c *countAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	if c.updateFast(groups, arg, include) {
		return nil
	}
	for i, g := range groups {
		if (include == nil || include[i]) && (c.star || kernel.IsValid(arg, i)) {
			c.counts[g]++
		}
	}
	return nil
}

func (c *countAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	valid := make([]bool, len(c.counts))
	for i := range valid {
		valid[i] = true
	}
	return buildSigned(mem, arrow.PrimitiveTypes.Int64, c.counts, valid), nil
}

// sumAcc is sum(x) or avg(x). Integers and decimals are summed exactly in 128 bits
// (DuckDB sums BIGINT into HUGEINT), floats in float64.
type sumAcc struct {
	kind   valueKind
	avg    bool
	scale  int32
	ints   []kernel.Int128
	floats []float64
	counts []int64
}

func (s *sumAcc) resize(n int) {
	s.counts = grow(s.counts, n)
	if s.kind == kindFloat {
		s.floats = grow(s.floats, n)
	} else {
		s.ints = grow(s.ints, n)
	}
}

func (s *sumAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	if s.updateFast(groups, arg, include) {
		return nil
	}
	add := s.adder(arg)
	for i, g := range groups {
		if (include == nil || include[i]) && kernel.IsValid(arg, i) {
			add(g, i)
			s.counts[g]++
		}
	}
	return nil
}

func (s *sumAcc) adder(arg arrow.Array) func(g int32, i int) {
	switch s.kind {
	case kindSigned:
		get := signedGetter(arg)
		return func(g int32, i int) { s.ints[g] = s.ints[g].AddInt64(get(i)) }
	case kindUnsigned:
		get := unsignedGetter(arg)
		return func(g int32, i int) { s.ints[g] = s.ints[g].AddUint64(get(i)) }
	case kindDecimal:
		get := decimalGetter(arg)
		return func(g int32, i int) {
			v := get(i)
			s.ints[g] = s.ints[g].Add(kernel.Int128{Hi: v.HighBits(), Lo: v.LowBits()})
		}
	}
	get := floatGetter(arg)
	return func(g int32, i int) { s.floats[g] += get(i) }
}

// value returns group g's sum as a float64 (in units, not decimal steps).
func (s *sumAcc) value(g int) float64 {
	if s.kind == kindFloat {
		return s.floats[g]
	}
	return s.ints[g].Float64() / math.Pow10(int(s.scale))
}

func (s *sumAcc) finish(mem memory.Allocator, dt arrow.DataType) (arrow.Array, error) {
	n := len(s.counts)
	valid := make([]bool, n)
	for g := range n {
		valid[g] = s.counts[g] > 0
	}
	if s.avg || dt.ID() == arrow.FLOAT64 || dt.ID() == arrow.FLOAT32 {
		vals := make([]float64, n)
		for g := range n {
			if valid[g] {
				vals[g] = s.value(g)
				if s.avg {
					vals[g] /= float64(s.counts[g])
				}
			}
		}
		return buildFloat(mem, arrow.PrimitiveTypes.Float64, vals, valid), nil
	}
	if s.kind == kindFloat {
		return nil, dberr.NotSupported("sum of floats as " + dt.String())
	}
	if dt.ID() == arrow.DECIMAL128 {
		return buildFixed(mem, dt, s.ints, valid, func(v kernel.Int128) decimal128.Num { return v.Decimal128() }), nil
	}
	vals := make([]int64, n)
	for g := range n {
		v, ok := s.ints[g].Int64()
		if valid[g] && !ok {
			return nil, dberr.New(dberr.OutOfRange, "Overflow in SUM: the sum does not fit in INT64")
		}
		vals[g] = v
	}
	return buildSigned(mem, arrow.PrimitiveTypes.Int64, vals, valid), nil
}

func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}
