package kernel_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/kernel"
	"github.com/flightd/flightd/internal/dberr"
)

// vecArray builds a fixed_size_list (dim > 0) or list (dim 0) array of elem from rows;
// a nil row is NULL, a NaN element is a NULL element.
func vecArray(t *testing.T, mem memory.Allocator, elem arrow.DataType, dim int, rows [][]float64) arrow.Array {
	t.Helper()
	var lt arrow.DataType = arrow.ListOf(elem)
	if dim > 0 {
		lt = arrow.FixedSizeListOf(int32(dim), elem)
	}
	b := array.NewBuilder(mem, lt)
	defer b.Release()
	for _, r := range rows {
		if r == nil {
			b.AppendNull()
			continue
		}
		var vb array.Builder
		switch lb := b.(type) {
		case *array.FixedSizeListBuilder:
			lb.Append(true)
			vb = lb.ValueBuilder()
		case *array.ListBuilder:
			lb.Append(true)
			vb = lb.ValueBuilder()
		}
		for _, v := range r {
			switch {
			case math.IsNaN(v):
				vb.AppendNull()
			case elem.ID() == arrow.FLOAT32:
				vb.(*array.Float32Builder).Append(float32(v))
			case elem.ID() == arrow.FLOAT64:
				vb.(*array.Float64Builder).Append(v)
			case elem.ID() == arrow.FLOAT16:
				vb.(*array.Float16Builder).Append(float16.New(float32(v)))
			case elem.ID() == arrow.INT8:
				vb.(*array.Int8Builder).Append(int8(v))
			}
		}
	}
	return b.NewArray()
}

func floats(a arrow.Array) []any {
	out := make([]any, a.Len())
	for i := range out {
		switch {
		case a.IsNull(i):
			out[i] = nil
		case a.DataType().ID() == arrow.FLOAT32:
			out[i] = a.(*array.Float32).Value(i)
		default:
			out[i] = a.(*array.Float64).Value(i)
		}
	}
	return out
}

func TestDistance(t *testing.T) {
	f32, f64 := arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64
	nan := math.NaN()
	sqrt13 := math.Sqrt(13)
	cases := []struct {
		name        string
		fn          string
		elemL       arrow.DataType
		elemR       arrow.DataType
		dim         int // 0: lists
		left, right [][]float64
		double      bool
		want        []any
		err         string
	}{
		{name: "l2 float", fn: "array_distance", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 2}, nil, {0, 0}}, right: [][]float64{{3, 5}, {1, 1}, {3, 4}},
			want: []any{float32(sqrt13), nil, float32(5)}},
		{name: "l2 double", fn: "array_distance", elemL: f64, elemR: f64, dim: 2, double: true,
			left: [][]float64{{1, 2}}, right: [][]float64{{3, 5}}, want: []any{sqrt13}},
		{name: "constant right", fn: "array_inner_product", elemL: f32, elemR: f32, dim: 3,
			left: [][]float64{{1, 2, 3}, {-1, 0, 1}, nil}, right: [][]float64{{1, 1, 2}},
			want: []any{float32(9), float32(1), nil}},
		{name: "negative inner product", fn: "array_negative_inner_product", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 2}}, right: [][]float64{{3, 4}}, want: []any{float32(-11)}},
		{name: "cosine", fn: "array_cosine_similarity", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 2}, {1, 2}, {1, 0}}, right: [][]float64{{2, 4}, {-2, -4}, {0, 3}},
			want: []any{float32(1), float32(-1), float32(0)}},
		{name: "cosine distance", fn: "array_cosine_distance", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 0}}, right: [][]float64{{0, 3}}, want: []any{float32(1)}},
		{name: "float16 and int8", fn: "array_distance", elemL: arrow.FixedWidthTypes.Float16, elemR: arrow.PrimitiveTypes.Int8, dim: 2,
			left: [][]float64{{0.5, 1.5}}, right: [][]float64{{3, -1}}, want: []any{float32(math.Sqrt(2.5*2.5 + 2.5*2.5))}},
		{name: "lists", fn: "list_distance", elemL: f64, elemR: f32, dim: 0, double: true,
			left: [][]float64{{1, 2}, {}, {1, 1, 1}}, right: [][]float64{{3, 5}, {}, {2, 2, 2}},
			want: []any{sqrt13, 0.0, math.Sqrt(3)}},
		{name: "list lengths", fn: "list_distance", elemL: f32, elemR: f32, dim: 0,
			left: [][]float64{{1, 2}}, right: [][]float64{{3, 5, 6}},
			err: "list_distance: list dimensions must be equal, got left length '2' and right length '3'"},
		{name: "null element", fn: "array_distance", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 2}}, right: [][]float64{{nan, 5}},
			err: "array_distance: right argument can not contain NULL values"},
		{name: "null element in null row is ignored", fn: "array_distance", elemL: f32, elemR: f32, dim: 2,
			left: [][]float64{{1, 2}, nil}, right: [][]float64{{1, 2}, {nan, 5}}, want: []any{float32(0), nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			l := vecArray(t, mem, c.elemL, c.dim, c.left)
			defer l.Release()
			r := vecArray(t, mem, c.elemR, c.dim, c.right)
			defer r.Release()
			op, ok := kernel.LookupVectorOp(c.fn)
			require.True(t, ok)
			out, err := kernel.Distance(mem, c.fn, op, l, r, len(c.left), c.double)
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				kind, _ := dberr.KindOf(err)
				require.Equal(t, dberr.InvalidInput, kind)
				return
			}
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, c.want, floats(out))
		})
	}
}

// TestDistanceSliced checks that array offsets (a batch sliced out of a larger one) are
// honoured on both the list and its elements.
func TestDistanceSliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	l := vecArray(t, mem, arrow.PrimitiveTypes.Float32, 2, [][]float64{{9, 9}, {1, 2}, nil, {3, 5}})
	defer l.Release()
	q := vecArray(t, mem, arrow.PrimitiveTypes.Float32, 2, [][]float64{{1, 2}})
	defer q.Release()
	part := array.NewSlice(l, 1, 4)
	defer part.Release()
	op, _ := kernel.LookupVectorOp("array_distance")
	out, err := kernel.Distance(mem, "array_distance", op, part, q, 3, false)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []any{float32(0), nil, float32(math.Sqrt(13))}, floats(out))
}

// TestDistanceRoundsLikeDuckDB checks the accumulation: products are fused into the
// running sum (DuckDB's compiled loop), not rounded separately.
func TestDistanceRoundsLikeDuckDB(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// Row 8 of functions/vector.test: DuckDB returns 1.0111746788024902; separately
	// rounded products give 1.0111745595932007.
	x := []float64{0.9893582463264465, -0.5609842538833618, 1, 2.8284270763397217}
	l := vecArray(t, mem, arrow.PrimitiveTypes.Float32, 4, [][]float64{x})
	defer l.Release()
	q := vecArray(t, mem, arrow.PrimitiveTypes.Float32, 4, [][]float64{{0.5, -0.25, 1, 2}})
	defer q.Release()
	op, _ := kernel.LookupVectorOp("array_distance")
	out, err := kernel.Distance(mem, "array_distance", op, l, q, 1, false)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, float32(1.0111746788024902), out.(*array.Float32).Value(0))
}

func TestLookupVectorOp(t *testing.T) {
	for name, want := range map[string]kernel.VectorOp{
		"array_distance": kernel.VecL2, "list_distance": kernel.VecL2,
		"array_cosine_similarity": kernel.VecCosineSimilarity, "list_cosine_distance": kernel.VecCosineDistance,
		"array_inner_product": kernel.VecInnerProduct, "list_negative_inner_product": kernel.VecNegInnerProduct,
	} {
		got, ok := kernel.LookupVectorOp(name)
		require.True(t, ok, name)
		require.Equal(t, want, got, name)
	}
	for _, name := range []string{"array_length", "distance", "list_value", strings.ToUpper("array_distance")} {
		_, ok := kernel.LookupVectorOp(name)
		require.False(t, ok, name)
	}
}

// TestDistanceConstantFastPath: the four-rows-at-a-time path for a float32 column against
// a constant vector gives bit-identical results to the row-by-row path (the constant
// broadcast to every row), with the constant on either side, NULL rows, a row count that
// is not a multiple of four and a sliced column.
func TestDistanceConstantFastPath(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const rows, dim = 23, 37
	rng := rand.New(rand.NewPCG(3, 4))
	var data, query [][]float64
	q := make([]float64, dim)
	for i := range q {
		q[i] = float64(float32(rng.NormFloat64()))
	}
	for i := range rows {
		if i%5 == 2 {
			data = append(data, nil)
		} else {
			r := make([]float64, dim)
			for j := range r {
				r[j] = float64(float32(rng.NormFloat64() * 3))
			}
			data = append(data, r)
		}
		query = append(query, q)
	}
	f32 := arrow.PrimitiveTypes.Float32
	col := vecArray(t, mem, f32, dim, data)
	defer col.Release()
	part := array.NewSlice(col, 2, rows)
	defer part.Release()
	one := vecArray(t, mem, f32, dim, [][]float64{q})
	defer one.Release()
	bcast := vecArray(t, mem, f32, dim, query[2:])
	defer bcast.Release()
	n := rows - 2
	for _, fn := range []string{"array_distance", "array_inner_product", "array_negative_inner_product"} {
		op, _ := kernel.LookupVectorOp(fn)
		slow, err := kernel.Distance(mem, fn, op, part, bcast, n, false)
		require.NoError(t, err)
		for _, args := range [][2]arrow.Array{{part, one}, {one, part}} {
			fast, err := kernel.Distance(mem, fn, op, args[0], args[1], n, false)
			require.NoError(t, err)
			require.Equal(t, floats(slow), floats(fast), fn)
			require.Equal(t, 5, fast.NullN(), "rows 0, 5, 10, 15 and 20 of the slice are NULL")
			fast.Release()
		}
		slow.Release()
	}
}
