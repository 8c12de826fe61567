package ops

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/internal/decfloat"
	"github.com/flightd/flightd/planner/plan"
)

// numberGetter reads a numeric column (integers, floats, decimals) as float64.
func numberGetter(dt arrow.DataType) (func(arrow.Array) func(int) float64, bool) {
	k, ok := kindOf(dt)
	if !ok {
		return nil, false
	}
	switch k {
	case kindSigned:
		if !arrow.IsInteger(dt.ID()) {
			return nil, false
		}
		return func(a arrow.Array) func(int) float64 {
			get := signedGetter(a)
			return func(i int) float64 { return float64(get(i)) }
		}, true
	case kindUnsigned:
		return func(a arrow.Array) func(int) float64 {
			get := unsignedGetter(a)
			return func(i int) float64 { return float64(get(i)) }
		}, true
	case kindFloat:
		return floatGetter, true
	case kindDecimal:
		scale := decimalScale(dt)
		return func(a arrow.Array) func(int) float64 {
			get := decimalGetter(a)
			return func(i int) float64 { return decfloat.ToFloat64(get(i), scale) }
		}, true
	}
	return nil, false
}

// varianceAcc is var_samp, var_pop, stddev_samp or stddev_pop: Welford's online algorithm
// per group, in float64. The sample variants are NULL for fewer than two values.
type varianceAcc struct {
	pop, sqrt bool
	get       func(arrow.Array) func(int) float64
	n         []int64
	mean, m2  []float64
}

func newVariance(fn string, argType arrow.DataType) (accumulator, error) {
	get, ok := numberGetter(argType)
	if !ok {
		return nil, dberr.NotSupported(fn + " of " + argType.String())
	}
	return &varianceAcc{
		pop:  fn == "var_pop" || fn == "stddev_pop",
		sqrt: fn == "stddev_samp" || fn == "stddev_pop" || fn == "stddev",
		get:  get,
	}, nil
}

func (v *varianceAcc) resize(n int) {
	v.n, v.mean, v.m2 = grow(v.n, n), grow(v.mean, n), grow(v.m2, n)
}

func (v *varianceAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	get := v.get(arg)
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		x := get(i)
		v.n[g]++
		d := x - v.mean[g]
		v.mean[g] += d / float64(v.n[g])
		v.m2[g] += d * (x - v.mean[g])
	}
	return nil
}

func (v *varianceAcc) finish(mem memory.Allocator, _ arrow.DataType) (arrow.Array, error) {
	vals := make([]float64, len(v.n))
	valid := make([]bool, len(v.n))
	for g, n := range v.n {
		div := n - 1
		if v.pop {
			div = n
		}
		if div <= 0 {
			continue
		}
		r := v.m2[g] / float64(div)
		if v.sqrt {
			r = math.Sqrt(r)
		}
		vals[g], valid[g] = r, true
	}
	return buildFloat(mem, arrow.PrimitiveTypes.Float64, vals, valid), nil
}

// boolAcc is bool_and (and) or bool_or; NULLs are skipped, no values gives NULL.
type boolAcc struct {
	and  bool
	vals []bool
	seen []bool
}

func (b *boolAcc) resize(n int) { b.vals, b.seen = grow(b.vals, n), grow(b.seen, n) }

func (b *boolAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	if arg.DataType().ID() != arrow.BOOL {
		return dberr.New(dberr.Internal, "bool_and/bool_or of %s", arg.DataType())
	}
	get := boolGetter(arg)
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		x := get(i)
		switch {
		case !b.seen[g]:
			b.vals[g], b.seen[g] = x, true
		case b.and:
			b.vals[g] = b.vals[g] && x
		default:
			b.vals[g] = b.vals[g] || x
		}
	}
	return nil
}

func (b *boolAcc) finish(mem memory.Allocator, _ arrow.DataType) (arrow.Array, error) {
	return buildBool(mem, b.vals, b.seen), nil
}

// stringAggAcc is string_agg(x, sep): the non-NULL values joined by sep in input order;
// NULL when there are none.
type stringAggAcc struct {
	sep  string
	vals [][]byte
	seen []bool
	size int64 // bytes in vals
}

func (s *stringAggAcc) stateBytes() int64 { return s.size }

func (s *stringAggAcc) resize(n int) { s.vals, s.seen = grow(s.vals, n), grow(s.seen, n) }

func (s *stringAggAcc) update(groups []int32, arg arrow.Array, include []bool) error {
	get := stringGetter(arg)
	if get == nil {
		return dberr.New(dberr.Internal, "string_agg of %s", arg.DataType())
	}
	for i, g := range groups {
		if (include != nil && !include[i]) || !kernel.IsValid(arg, i) {
			continue
		}
		if s.seen[g] {
			s.vals[g] = append(s.vals[g], s.sep...)
			s.size += int64(len(s.sep))
		}
		v := get(i)
		s.vals[g] = append(s.vals[g], v...)
		s.size += int64(len(v))
		s.seen[g] = true
	}
	return nil
}

func (s *stringAggAcc) finish(mem memory.Allocator, _ arrow.DataType) (arrow.Array, error) {
	strs := make([]string, len(s.vals))
	for g, v := range s.vals {
		strs[g] = string(v)
	}
	return buildString(mem, arrow.BinaryTypes.String, strs, s.seen)
}

// keepsNulls reports whether an aggregate takes NULL values into account (DISTINCT keeps
// one NULL for them).
func keepsNulls(fn string) bool {
	return fn == "list" || fn == "array_agg" || fn == "first" || fn == "last"
}

// newMoreAccumulator builds the statistical, boolean, string and value-picking aggregates.
func newMoreAccumulator(call plan.AggCall, argType arrow.DataType, mem memory.Allocator) (accumulator, error) {
	if argType == nil {
		return nil, dberr.New(dberr.Binder, "%s needs an argument", call.Func)
	}
	switch call.Func {
	case "stddev_samp", "stddev_pop", "stddev", "var_samp", "var_pop", "variance":
		if argType.ID() == arrow.NULL {
			return &nullAcc{}, nil
		}
		return newVariance(call.Func, argType)
	case "bool_and", "bool_or":
		if argType.ID() == arrow.NULL {
			return &nullAcc{}, nil
		}
		return &boolAcc{and: call.Func == "bool_and"}, nil
	case "string_agg":
		return newStringAgg(call)
	case "first", "last", "any_value":
		return newPick(call.Func, argType, mem), nil
	case "list", "array_agg":
		return &listAcc{store: rowStore{mem: mem, dt: argType}}, nil
	}
	return &hllAcc{}, nil
}

// newStringAgg reads string_agg's separator, which must be a constant (',' by default).
func newStringAgg(call plan.AggCall) (accumulator, error) {
	acc := &stringAggAcc{sep: ","}
	if len(call.Args) == 2 {
		lit, ok := call.Args[1].(*plan.Literal)
		if !ok {
			return nil, dberr.NotSupported("string_agg with a separator that is not a constant")
		}
		if !lit.Value.IsValid() {
			return &nullAcc{}, nil
		}
		sep, ok := lit.Value.(*scalar.String)
		if !ok {
			return nil, dberr.New(dberr.Binder, "string_agg separator must be a string, not %s", lit.Value.DataType())
		}
		acc.sep = sep.String()
	}
	if t := call.Args[0].Type(); t.ID() == arrow.NULL {
		return &nullAcc{}, nil
	}
	return acc, nil
}
