package expr_test

import (
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec/expr"
	"github.com/flightd/flightd/planner/functions"
	"github.com/flightd/flightd/planner/plan"
)

// vecBatch is one column v fixed_size_list<float32>[2]: [1,2], NULL, [3,5], [1, NULL].
func vecBatch(t *testing.T, mem memory.Allocator) arrow.RecordBatch {
	t.Helper()
	dt := arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32)
	b := array.NewFixedSizeListBuilder(mem, 2, arrow.PrimitiveTypes.Float32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Float32Builder)
	b.Append(true)
	vb.AppendValues([]float32{1, 2}, nil)
	b.AppendNull()
	b.Append(true)
	vb.AppendValues([]float32{3, 5}, nil)
	b.Append(true)
	vb.AppendValues([]float32{1, 0}, []bool{true, false})
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: dt, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{arr}, int64(arr.Len()))
}

// queryVector is the bound literal [1, 2]::FLOAT[2].
func queryVector(t *testing.T) plan.Expr {
	t.Helper()
	l, err := functions.ListValue([]plan.Expr{lit(int32(1)), lit(int32(2))})
	require.NoError(t, err)
	q, err := functions.Cast(l, arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32))
	require.NoError(t, err)
	return q
}

func TestVectorEval(t *testing.T) {
	v := &plan.ColumnRef{Index: 0, Name: "v", DataType: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32), Null: true}
	cases := []struct {
		name string
		fn   string
		args func(t *testing.T) []plan.Expr
		rows int // rows of the batch to use (the 4th row holds a NULL element)
		want []any
		err  string
	}{
		{"constant query vector", "array_distance", func(t *testing.T) []plan.Expr { return []plan.Expr{v, queryVector(t)} },
			3, []any{float32(0), nil, float32(math.Sqrt(13))}, ""},
		{"constant on the left", "array_inner_product", func(t *testing.T) []plan.Expr { return []plan.Expr{queryVector(t), v} },
			3, []any{float32(5), nil, float32(13)}, ""},
		{"two columns", "array_cosine_similarity", func(*testing.T) []plan.Expr { return []plan.Expr{v, v} },
			3, []any{float32(1), nil, float32(1)}, ""},
		{"NULL argument", "array_distance", func(t *testing.T) []plan.Expr {
			return []plan.Expr{&plan.Literal{Value: scalar.MakeNullScalar(arrow.Null)}, queryVector(t)}
		}, 3, []any{nil, nil, nil}, ""},
		{"NULL element", "array_distance", func(t *testing.T) []plan.Expr { return []plan.Expr{v, queryVector(t)} },
			4, nil, "array_distance: left argument can not contain NULL values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			full := vecBatch(t, mem)
			defer full.Release()
			b := full.NewSlice(0, int64(c.rows))
			defer b.Release()
			call, err := functions.NewCall(c.fn, c.args(t))
			require.NoError(t, err)
			ev, err := expr.Compile(call, mem)
			require.NoError(t, err)
			out, err := ev.Eval(context.Background(), b)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, arrow.FLOAT32, out.DataType().ID())
			got := make([]any, out.Len())
			for i := range got {
				if !out.IsNull(i) {
					got[i] = out.(*array.Float32).Value(i)
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

// TestCastArrayElems casts TINYINT[2] to FLOAT[2] (arrow-go has no kernel for it).
func TestCastArrayElems(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewFixedSizeListBuilder(mem, 2, arrow.PrimitiveTypes.Int8)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Int8Builder)
	b.Append(true)
	vb.AppendValues([]int8{-3, 4}, nil)
	b.AppendNull()
	b.Append(true)
	vb.AppendValues([]int8{127, -128}, nil)
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arr.DataType(), Nullable: true}}, nil)
	rb := array.NewRecordBatch(sc, []arrow.Array{arr}, 3)
	defer rb.Release()
	part := rb.NewSlice(1, 3)
	defer part.Release()
	to := arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32)
	ev, err := expr.Compile(&plan.Cast{Input: &plan.ColumnRef{Index: 0, DataType: arr.DataType(), Null: true}, DataType: to}, mem)
	require.NoError(t, err)
	out, err := ev.Eval(context.Background(), part)
	require.NoError(t, err)
	defer out.Release()
	require.True(t, arrow.TypeEqual(to, out.DataType()))
	require.Equal(t, `[(null) [127 -128]]`, out.String())
}

// TestCastListToArray casts FLOAT[] to FLOAT[2] over a sliced batch: lengths are checked
// per row (NULL lists pass), and a list of another length is DuckDB's Conversion error.
func TestCastListToArray(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Int32Builder)
	for _, r := range [][]int32{{9, 9, 9}, {1, 2}, nil, {3, 4}, {5}} {
		if r == nil {
			b.AppendNull()
			continue
		}
		b.Append(true)
		vb.AppendValues(r, nil)
	}
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arr.DataType(), Nullable: true}}, nil)
	rb := array.NewRecordBatch(sc, []arrow.Array{arr}, 5)
	defer rb.Release()
	to := arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32)
	ev, err := expr.Compile(&plan.Cast{Input: &plan.ColumnRef{Index: 0, DataType: arr.DataType(), Null: true}, DataType: to}, mem)
	require.NoError(t, err)
	cases := []struct {
		from, to int64
		want     string
		err      string
	}{
		{from: 1, to: 4, want: "[[1 2] (null) [3 4]]"},
		{from: 2, to: 3, want: "[(null)]"},
		{from: 0, to: 2, err: "Cannot cast list with length 3 to array with length 2"},
		{from: 3, to: 5, err: "Cannot cast list with length 1 to array with length 2"},
	}
	for _, c := range cases {
		part := rb.NewSlice(c.from, c.to)
		out, err := ev.Eval(context.Background(), part)
		part.Release()
		if c.err != "" {
			require.ErrorContains(t, err, c.err)
			continue
		}
		require.NoError(t, err)
		require.True(t, arrow.TypeEqual(to, out.DataType()))
		require.Equal(t, c.want, out.String())
		out.Release()
	}
}
