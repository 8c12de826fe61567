package ops_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/planner/plan"
)

// TestRange checks range/generate_series bounds, directions, emptiness and the overflow
// stop at the ends of BIGINT, at several batch sizes.
func TestRange(t *testing.T) {
	const maxI = int64(1<<63 - 1)
	cases := []struct {
		name              string
		start, stop, step int64
		incl, empty       bool
		want              []int64
	}{
		{"up", 0, 5, 2, false, false, []int64{0, 2, 4}},
		{"up inclusive", 0, 4, 2, true, false, []int64{0, 2, 4}},
		{"down", 5, 0, -2, false, false, []int64{5, 3, 1}},
		{"down inclusive", 4, 0, -2, true, false, []int64{4, 2, 0}},
		{"wrong direction", 0, 5, -1, false, false, nil},
		{"empty", 3, 3, 1, false, false, nil},
		{"single inclusive", 3, 3, 1, true, false, []int64{3}},
		{"null argument", 0, 5, 1, false, true, nil},
		{"overflow up", maxI - 2, maxI, 1, true, false, []int64{maxI - 2, maxI - 1, maxI}},
		{"overflow down", -maxI, -maxI - 1, -1, true, false, []int64{-maxI, -maxI - 1}},
		{"big step", 0, maxI, maxI / 2, true, false, []int64{0, maxI / 2, maxI / 2 * 2}},
	}
	for _, c := range cases {
		for _, size := range []int{1, 2, 1024} {
			t.Run(c.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				n := plan.NewRange("range", c.start, c.stop, c.step, c.incl, c.empty)
				out, err := exec.Collect(context.Background(), ops.NewRange(n, exec.Env{Mem: mem, BatchSize: size}))
				require.NoError(t, err)
				var got []int64
				for _, b := range out {
					require.LessOrEqual(t, int(b.NumRows()), size)
					got = append(got, b.Column(0).(*array.Int64).Int64Values()...)
					b.Release()
				}
				require.Equal(t, c.want, got)
			})
		}
	}
}

// TestRangeCancel: a huge range stops at the first batch after cancellation.
func TestRangeCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	op := ops.NewRange(plan.NewRange("range", 0, 1<<62, 1, false, false), exec.Env{Mem: mem, BatchSize: 10})
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, op.Open(ctx))
	b, err := op.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(10), b.NumRows())
	b.Release()
	cancel()
	_, err = op.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, op.Close())
}

// TestUnnest checks zipping with NULL padding, NULL and empty lists, lists of structs,
// a NULL-typed list and batch splitting.
func TestUnnest(t *testing.T) {
	i32 := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	strs := arrow.ListOf(arrow.BinaryTypes.String)
	st := arrow.ListOf(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	cases := []struct {
		name  string
		types []arrow.DataType
		cols  []string // JSON per list column
		want  exectest.Rows
	}{
		{"one list", []arrow.DataType{i32}, []string{`[[1, 2, 3], [], null, [4, null]]`},
			exectest.Rows{{0, 1}, {0, 2}, {0, 3}, {3, 4}, {3, nil}}},
		{"zipped", []arrow.DataType{i32, strs}, []string{`[[1, 2, 3], [], null, [5]]`, `[["a"], ["b"], null, []]`},
			exectest.Rows{{0, 1, "a"}, {0, 2, nil}, {0, 3, nil}, {1, nil, "b"}, {3, 5, nil}}},
		{"structs", []arrow.DataType{st}, []string{`[[{"a": 1}, null], [{"a": null}]]`},
			exectest.Rows{{0, `{"a":1}`}, {0, nil}, {1, `{"a":null}`}}},
		{"null type", []arrow.DataType{i32, arrow.Null}, []string{`[[7], [8, 9]]`, `[null, null]`},
			exectest.Rows{{0, 7, nil}, {1, 8, nil}, {1, 9, nil}}},
	}
	for _, c := range cases {
		for _, size := range []int{1, 2, 1024} {
			t.Run(c.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				exectest.RequireRows(t, c.want, runUnnest(t, mem, c.types, c.cols, size), true)
			})
		}
	}
}

// runUnnest unnests the JSON list columns (after a row-number column) of one batch.
func runUnnest(t *testing.T, mem memory.Allocator, types []arrow.DataType, cols []string, size int) exectest.Rows {
	fields := []arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int64}}
	arrs := []arrow.Array{}
	lists := []plan.Expr{}
	names := []string{}
	for i, dt := range types {
		a, _, err := array.FromJSON(mem, dt, strings.NewReader(cols[i]))
		require.NoError(t, err)
		arrs = append(arrs, a)
		fields = append(fields, arrow.Field{Name: "l", Type: dt, Nullable: true})
		lists = append(lists, &plan.ColumnRef{Index: i + 1, Name: "l", DataType: dt, Null: true})
		names = append(names, "e")
	}
	rb := array.NewInt64Builder(mem)
	for i := range arrs[0].Len() {
		rb.Append(int64(i))
	}
	rows := rb.NewArray()
	rb.Release()
	schema := arrow.NewSchema(fields, nil)
	batch := array.NewRecordBatch(schema, append([]arrow.Array{rows}, arrs...), int64(rows.Len()))
	rows.Release()
	for _, a := range arrs {
		a.Release()
	}
	src := exectest.NewSource(schema, []arrow.RecordBatch{batch})
	n := plan.NewUnnest(planSource{schema}, lists, names)
	out, err := exec.Collect(context.Background(), ops.NewUnnest(src, n, exec.Env{Mem: mem, BatchSize: size}))
	require.NoError(t, err)
	got := exectest.ToRows(out)
	for _, b := range out {
		require.LessOrEqual(t, int(b.NumRows()), size)
		b.Release()
	}
	// Keep the row number and the elements; drop the list columns.
	var want exectest.Rows
	for _, r := range got {
		row := []any{r[0]}
		row = append(row, r[1+len(types):]...)
		want = append(want, row)
	}
	return want
}

// planSource is a leaf plan node with a fixed schema (the input of a plan.Unnest).
type planSource struct{ s *arrow.Schema }

func (p planSource) Schema() *arrow.Schema { return p.s }
func (p planSource) Children() []plan.Node { return nil }
