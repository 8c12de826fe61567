package kernel

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/flightd/flightd/internal/dberr"
)

// VectorOp is one of DuckDB's distance functions over two vectors.
type VectorOp int

// The distance operations.
const (
	VecL2               VectorOp = iota + 1 // sqrt(Σ (a-b)²)
	VecCosineSimilarity                     // a·b / sqrt(|a|² |b|²), clamped to [-1, 1]
	VecCosineDistance                       // 1 - cosine similarity
	VecInnerProduct                         // a·b
	VecNegInnerProduct                      // -(a·b)
)

var vectorOps = map[string]VectorOp{
	"distance": VecL2, "cosine_similarity": VecCosineSimilarity,
	"cosine_distance": VecCosineDistance, "inner_product": VecInnerProduct,
	"negative_inner_product": VecNegInnerProduct,
}

// LookupVectorOp maps a canonical function name (array_distance, list_cosine_similarity,
// ...) to its operation.
func LookupVectorOp(name string) (VectorOp, bool) {
	for _, prefix := range []string{"array_", "list_"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			op, found := vectorOps[rest]
			return op, found
		}
	}
	return 0, false
}

// vecSide is one argument of a distance call: its list layout and its elements converted
// to the computation type. A side of one row broadcasts over every row.
type vecSide[T float32 | float64] struct {
	list   array.ListLike
	vals   []T
	nulls  arrow.Array // the child array, when it has NULL elements
	single bool
}

// Distance computes op row by row over two list-like arrays (fixed_size_list or list of
// float16, float32, float64 or int8 elements) for rows rows. An argument of length 1 is a
// constant applied to every row. The result is float64 when double is set, else float32
// (computed in that precision, accumulating in order as DuckDB does). A row is NULL when
// either vector is; a NULL element or vectors of different lengths are InvalidInput
// errors naming the function.
func Distance(mem memory.Allocator, name string, op VectorOp, left, right arrow.Array, rows int, double bool) (arrow.Array, error) {
	if double {
		return distance[float64](mem, name, op, left, right, rows)
	}
	if m, ok := matchConstFloat32(op, left, right, rows); ok {
		return distanceConst32(mem, op, m, rows), nil
	}
	return distance[float32](mem, name, op, left, right, rows)
}

func distance[T float32 | float64](mem memory.Allocator, name string, op VectorOp, left, right arrow.Array, rows int) (arrow.Array, error) {
	l, err := newSide[T](name, left, rows)
	if err != nil {
		return nil, err
	}
	r, err := newSide[T](name, right, rows)
	if err != nil {
		return nil, err
	}
	apply := applyFunc[T]()
	b := newFloatBuilder[T](mem)
	defer b.Release()
	b.Reserve(rows)
	for i := range rows {
		li, ri := l.row(i), r.row(i)
		if l.list.IsNull(li) || r.list.IsNull(ri) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		x, err := l.vector(name, "left", li)
		if err != nil {
			return nil, err
		}
		y, err := r.vector(name, "right", ri)
		if err != nil {
			return nil, err
		}
		if len(x) != len(y) {
			return nil, dberr.New(dberr.InvalidInput, "%s: list dimensions must be equal, got left length '%d' and right length '%d'", name, len(x), len(y))
		}
		b.UnsafeAppend(apply(op, x, y))
	}
	return b.NewArray(), nil
}

func newSide[T float32 | float64](name string, a arrow.Array, rows int) (*vecSide[T], error) {
	list, ok := a.(array.ListLike)
	if !ok {
		return nil, dberr.New(dberr.Internal, "%s: argument of type %s is not a list", name, a.DataType())
	}
	if a.Len() != rows && a.Len() != 1 {
		return nil, dberr.New(dberr.Internal, "%s: argument has %d rows, want %d", name, a.Len(), rows)
	}
	child := list.ListValues()
	vals, err := floatValues[T](child)
	if err != nil {
		return nil, dberr.Wrap(dberr.Internal, err, "%s", name)
	}
	s := &vecSide[T]{list: list, vals: vals, single: a.Len() == 1 && rows != 1}
	if child.NullN() > 0 {
		s.nulls = child
	}
	return s, nil
}

func (s *vecSide[T]) row(i int) int {
	if s.single {
		return 0
	}
	return i
}

// vector returns the elements of row i, checking them for NULLs.
func (s *vecSide[T]) vector(name, side string, i int) ([]T, error) {
	start, end := s.list.ValueOffsets(i)
	if s.nulls != nil {
		for j := start; j < end; j++ {
			if s.nulls.IsNull(int(j)) {
				return nil, dberr.New(dberr.InvalidInput, "%s: %s argument can not contain NULL values", name, side)
			}
		}
	}
	return s.vals[start:end], nil
}

// floatValues returns the elements of child as []T; float arrays of type T are used in
// place, other element types are converted.
func floatValues[T float32 | float64](child arrow.Array) ([]T, error) {
	switch c := child.(type) {
	case *array.Float32:
		if v, ok := any(c.Float32Values()).([]T); ok {
			return v, nil
		}
		return convert[T](c.Float32Values()), nil
	case *array.Float64:
		if v, ok := any(c.Float64Values()).([]T); ok {
			return v, nil
		}
		return convert[T](c.Float64Values()), nil
	case *array.Int8:
		return convert[T](c.Int8Values()), nil
	case *array.Float16:
		out := make([]T, c.Len())
		for i, h := range c.Values() {
			out[i] = T(h.Float32())
		}
		return out, nil
	case *array.Null:
		return make([]T, c.Len()), nil
	}
	return nil, dberr.New(dberr.Internal, "vector elements of type %s", child.DataType())
}

func convert[T float32 | float64, S float32 | float64 | int8](in []S) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = T(v)
	}
	return out
}

// apply32 and apply64 compute op over two vectors of equal length, accumulating in order
// with fused multiply-adds: DuckDB's loops (sum += a*b) are compiled with FP contraction,
// and the results must round the same way. For float32 the product of two float32 values
// is exact in float64, so float64 arithmetic gives the fused result (rounded through
// float64, as math.FMA would be) without a call.
func apply32(op VectorOp, x, y []float32) float32 {
	y = y[:len(x)]
	switch op {
	case VecL2:
		var s float64
		for i, a := range x {
			d := float64(a - y[i])
			s = float64(float32(s + d*d))
		}
		return float32(math.Sqrt(s))
	case VecInnerProduct, VecNegInnerProduct:
		var s float64
		for i, a := range x {
			s = float64(float32(s + float64(a)*float64(y[i])))
		}
		if op == VecNegInnerProduct {
			return -float32(s)
		}
		return float32(s)
	}
	var dot, nx, ny float64
	for i, a := range x {
		a, b := float64(a), float64(y[i])
		dot = float64(float32(dot + a*b))
		nx = float64(float32(nx + a*a))
		ny = float64(float32(ny + b*b))
	}
	norm := float32(math.Sqrt(float64(float32(nx) * float32(ny))))
	return cosine(op, float32(dot)/norm)
}

func apply64(op VectorOp, x, y []float64) float64 {
	y = y[:len(x)]
	switch op {
	case VecL2:
		var s float64
		for i, a := range x {
			d := a - y[i]
			s = math.FMA(d, d, s)
		}
		return math.Sqrt(s)
	case VecInnerProduct, VecNegInnerProduct:
		var s float64
		for i, a := range x {
			s = math.FMA(a, y[i], s)
		}
		if op == VecNegInnerProduct {
			return -s
		}
		return s
	}
	var dot, nx, ny float64
	for i, a := range x {
		b := y[i]
		dot = math.FMA(a, b, dot)
		nx = math.FMA(a, a, nx)
		ny = math.FMA(b, b, ny)
	}
	return cosine(op, dot/math.Sqrt(nx*ny))
}

// cosine clamps a similarity to [-1, 1] (NaN stays NaN) and turns it into a distance for
// VecCosineDistance.
func cosine[T float32 | float64](op VectorOp, sim T) T {
	switch {
	case sim > 1:
		sim = 1
	case sim < -1:
		sim = -1
	}
	if op == VecCosineDistance {
		return 1 - sim
	}
	return sim
}

// floatBuilder is the part of array.Float32Builder and array.Float64Builder Distance uses.
type floatBuilder[T float32 | float64] interface {
	Reserve(n int)
	UnsafeAppend(v T)
	UnsafeAppendBoolToBitmap(valid bool)
	NewArray() arrow.Array
	Release()
}

func newFloatBuilder[T float32 | float64](mem memory.Allocator) floatBuilder[T] {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return any(array.NewFloat32Builder(mem)).(floatBuilder[T])
	}
	return any(array.NewFloat64Builder(mem)).(floatBuilder[T])
}

func applyFunc[T float32 | float64]() func(VectorOp, []T, []T) T {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return any(apply32).(func(VectorOp, []T, []T) T)
	}
	return any(apply64).(func(VectorOp, []T, []T) T)
}
