package ops_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/exec"
	"github.com/flightd/flightd/exec/exectest"
	"github.com/flightd/flightd/exec/ops"
	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/plan"
)

// winFn builds a window function; over adds its specification.
func winFn(fn string, dt arrow.DataType, args ...plan.Expr) plan.WindowFunc {
	return plan.WindowFunc{Func: fn, Args: args, DataType: dt, Null: true, Name: fn}
}

func over(f plan.WindowFunc, part []plan.Expr, order []plan.SortKey, frame *plan.Frame) plan.WindowFunc {
	f.PartitionBy, f.OrderBy, f.Frame = part, order, frame
	return f
}

func asc(e plan.Expr) plan.SortKey  { return plan.SortKey{Expr: e} }
func desc(e plan.Expr) plan.SortKey { return plan.SortKey{Expr: e, Descending: true} }
func nullsFirst(k plan.SortKey) plan.SortKey {
	k.NullsFirst = true
	return k
}

func frame(unit plan.FrameUnit, start, end plan.FrameBound) *plan.Frame {
	return &plan.Frame{Unit: unit, Start: start, End: end}
}

var (
	unbPre = plan.FrameBound{Kind: plan.UnboundedPreceding}
	unbFol = plan.FrameBound{Kind: plan.UnboundedFollowing}
	curRow = plan.FrameBound{Kind: plan.CurrentRow}
)

func pre(v any) plan.FrameBound { return plan.FrameBound{Kind: plan.Preceding, Offset: lit(v)} }
func fol(v any) plan.FrameBound { return plan.FrameBound{Kind: plan.Following, Offset: lit(v)} }

// windowCase runs funcs over input through exectest (every batch size and layout); want
// holds only the function columns, in input order.
func windowCase(name string, in *arrow.Schema, input exectest.Rows, funcs []plan.WindowFunc, want exectest.Rows) exectest.Case {
	out := plan.NewWindow(plan.NewValues(in, nil), funcs).Schema()
	expected := make(exectest.Rows, len(input))
	for r := range input {
		expected[r] = append(append([]any{}, input[r]...), want[r]...)
	}
	return exectest.Case{
		Name: name, Schema: in, Input: input, Expected: expected, Ordered: true,
		Make: func(input exec.Operator, env exec.Env) (exec.Operator, error) {
			return ops.NewWindow(input, funcs, out, env), nil
		},
	}
}

// smallSchema/smallRows are a table whose results were computed by DuckDB 2.0.
var (
	smallSchema = schema(field("id", i64), field("g", str), field("x", f64))
	smallRows   = exectest.Rows{
		{1, "a", 1.0}, {2, "a", 2.0}, {3, "a", nil}, {4, "b", 5.0},
		{5, "b", 5.0}, {6, nil, 7.0}, {7, "a", 2.0}, {8, "a", nil},
	}
)

func TestWindowRanking(t *testing.T) {
	g, x, id := []plan.Expr{col(1, str)}, []plan.SortKey{asc(col(2, f64))}, col(0, i64)
	funcs := []plan.WindowFunc{
		over(winFn("rank", i64), g, x, nil),
		over(winFn("dense_rank", i64), g, x, nil),
		over(winFn("percent_rank", f64), g, x, nil),
		over(winFn("cume_dist", f64), g, x, nil),
		over(winFn("ntile", i64, id), nil, []plan.SortKey{asc(id)}, nil),
		over(winFn("row_number", i64), g, []plan.SortKey{asc(col(2, f64)), asc(id)}, nil),
	}
	// select rank() over w, dense_rank() over w, percent_rank() over w, cume_dist() over w,
	//   ntile(id) over (order by id), row_number() over (w order by x, id)
	// from t window w as (partition by g order by x) order by id
	want := exectest.Rows{
		{1, 1, 0.0, 0.2, 1, 1}, {2, 2, 0.25, 0.6, 1, 2}, {4, 3, 0.75, 1.0, 1, 4}, {1, 1, 0.0, 1.0, 2, 1},
		{1, 1, 0.0, 1.0, 3, 2}, {1, 1, 0.0, 1.0, 4, 1}, {2, 2, 0.25, 0.6, 6, 3}, {4, 3, 0.75, 1.0, 8, 5},
	}
	exectest.Run(t, windowCase("ranking", smallSchema, smallRows, funcs, want))
}

func TestWindowNavigation(t *testing.T) {
	byID := []plan.SortKey{asc(col(0, i64))}
	funcs := []plan.WindowFunc{
		over(winFn("lag", f64, col(2, f64), lit(int64(1)), call("multiply", f64, &plan.Cast{Input: col(0, i64), DataType: f64}, lit(10.5))), nil, byID, nil),
		over(winFn("lag", f64, col(2, f64), lit(int64(-2))), nil, byID, nil),
		over(winFn("lead", f64, col(2, f64), lit(int64(2)), lit(-1.0)), []plan.Expr{col(1, str)}, []plan.SortKey{asc(col(2, f64)), asc(col(0, i64))}, nil),
		over(winFn("nth_value", f64, col(2, f64), col(0, i64)), nil, byID, frame(plan.FrameRows, unbPre, unbFol)),
		over(winFn("first_value", f64, col(2, f64)), []plan.Expr{col(1, str)}, []plan.SortKey{asc(col(2, f64)), asc(col(0, i64))},
			frame(plan.FrameRows, fol(int64(1)), fol(int64(2)))),
	}
	// lag(x,1,id*10.5) over (order by id), lag(x,-2) over (order by id),
	// lead(x,2,-1) over (partition by g order by x, id), nth_value(x,id) over (order by id rows
	// between unbounded preceding and unbounded following), first_value(x) over (partition by g
	// order by x, id rows between 1 following and 2 following)
	want := exectest.Rows{
		{10.5, nil, 2.0, 1.0, 2.0}, {1.0, 5.0, nil, 2.0, 2.0}, {2.0, 5.0, -1.0, nil, nil}, {nil, 7.0, -1.0, 5.0, 5.0},
		{5.0, 2.0, -1.0, 5.0, nil}, {5.0, nil, -1.0, 7.0, nil}, {7.0, nil, nil, 2.0, nil}, {2.0, nil, -1.0, nil, nil},
	}
	exectest.Run(t, windowCase("navigation", smallSchema, smallRows, funcs, want))
}

func TestWindowFramedAggregates(t *testing.T) {
	byX := []plan.SortKey{asc(col(2, f64))}
	byID := []plan.SortKey{asc(col(0, i64))}
	funcs := []plan.WindowFunc{
		over(winFn("sum", f64, col(2, f64)), nil, byX, frame(plan.FrameRange, pre(1.0), fol(1.0))),
		over(winFn("count", i64), nil, byX, frame(plan.FrameRange, pre(1.0), curRow)),
		over(winFn("count", i64), nil, []plan.SortKey{desc(col(2, f64))}, frame(plan.FrameRange, pre(1.0), curRow)),
		over(winFn("count", i64, col(2, f64)), nil, byID, frame(plan.FrameGroups, pre(int64(1)), fol(int64(1)))),
		over(winFn("sum", i64, col(0, i64)), nil, []plan.SortKey{nullsFirst(asc(col(2, f64)))}, frame(plan.FrameGroups, pre(int64(1)), curRow)),
		over(winFn("sum", i64, col(0, i64)), nil, byX, frame(plan.FrameRange, unbPre, pre(1.0))),
		over(winFn("sum", i64, col(0, i64)), nil, byX, frame(plan.FrameRange, fol(1.0), unbFol)),
		over(winFn("sum", i64, col(0, i64)), nil, byX, frame(plan.FrameRows, fol(int64(3)), fol(int64(1)))),
	}
	want := exectest.Rows{
		{5.0, 1, 3, 2, 12, nil, 35, nil}, {5.0, 3, 2, 2, 10, 1, 26, nil}, {nil, 2, 2, 2, 11, 36, 11, nil},
		{10.0, 2, 2, 2, 18, 10, 17, nil}, {10.0, 2, 2, 3, 18, 10, 17, nil}, {7.0, 1, 1, 3, 15, 19, 11, nil},
		{5.0, 3, 2, 2, 10, 1, 26, nil}, {nil, 2, 2, 1, 11, 36, 11, nil},
	}
	exectest.Run(t, windowCase("framed", smallSchema, smallRows, funcs, want))
}

func TestWindowDistinctFilterFold(t *testing.T) {
	byID := []plan.SortKey{asc(col(0, i64))}
	funcs := []plan.WindowFunc{
		over(winFn("count", i64, col(2, f64)), nil, byID, frame(plan.FrameRows, pre(int64(2)), curRow)),
		over(winFn("sum", f64, col(2, f64)), nil, byID, nil),
		over(winFn("string_agg", str, col(1, str), lit("-")), nil, byID, frame(plan.FrameRows, pre(int64(1)), fol(int64(1)))),
		over(winFn("sum", f64, col(2, f64)), nil, byID, nil),
	}
	funcs[0].Distinct, funcs[1].Distinct = true, true
	funcs[3].Filter = call("gt", bln, col(0, i64), lit(int64(2)))
	// count(distinct x) over (order by id rows between 2 preceding and current row),
	// sum(distinct x) over (order by id), string_agg(g, '-') over (order by id rows between 1
	// preceding and 1 following), sum(x) filter (where id > 2) over (order by id)
	want := exectest.Rows{
		{1, 1.0, "a-a", nil}, {2, 3.0, "a-a-a", nil}, {2, 3.0, "a-a-b", nil}, {2, 8.0, "a-b-b", 5.0},
		{1, 8.0, "b-b", 10.0}, {2, 15.0, "b-a", 17.0}, {3, 15.0, "a-a", 19.0}, {2, 15.0, "a-a", 19.0},
	}
	exectest.Run(t, windowCase("fold", smallSchema, smallRows, funcs, want))
}

func TestWindowErrors(t *testing.T) {
	byID := []plan.SortKey{asc(col(0, i64))}
	cases := []struct {
		name string
		f    plan.WindowFunc
		kind dberr.Kind
		msg  string
	}{
		{"ntile zero", over(winFn("ntile", i64, lit(int64(0))), nil, byID, nil), dberr.InvalidInput, "Argument for ntile must be greater than zero"},
		{"negative rows", over(winFn("sum", i64, col(0, i64)), nil, byID, frame(plan.FrameRows, pre(int64(-1)), curRow)),
			dberr.InvalidInput, "Window ROWS PRECEDING expression cannot be negative"},
		{"negative range", over(winFn("sum", i64, col(0, i64)), nil, []plan.SortKey{asc(col(2, f64))}, frame(plan.FrameRange, pre(-1.0), curRow)),
			dberr.OutOfRange, "Invalid RANGE PRECEDING value"},
		{"range on strings", over(winFn("count", i64), nil, []plan.SortKey{asc(col(1, str))}, frame(plan.FrameRange, pre("a"), curRow)),
			dberr.NotImplemented, "RANGE frame offsets"},
		{"unknown", over(winFn("median", f64, col(2, f64)), nil, nil, nil), dberr.NotImplemented, "window function median"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exectest.Run(t, exectest.Case{
				Name: c.name, Schema: smallSchema, Input: smallRows,
				Make: func(in exec.Operator, env exec.Env) (exec.Operator, error) {
					funcs := []plan.WindowFunc{c.f}
					return ops.NewWindow(in, funcs, plan.NewWindow(plan.NewValues(smallSchema, nil), funcs).Schema(), env), nil
				},
				WantErr: func(t *testing.T, err error) {
					k, ok := dberr.KindOf(err)
					require.True(t, ok, "%v", err)
					require.Equal(t, c.kind, k, "%v", err)
					require.Contains(t, err.Error(), c.msg)
				},
			})
		})
	}
}

func TestWindowEmptyInputAndClose(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	env := exec.Env{Mem: mem}.WithDefaults()
	funcs := []plan.WindowFunc{winFn("row_number", i64)}
	out := plan.NewWindow(plan.NewValues(smallSchema, nil), funcs).Schema()
	src := exectest.NewSource(smallSchema, nil)
	op := ops.NewWindow(src, funcs, out, env)
	batches, err := exec.Collect(context.Background(), op)
	require.NoError(t, err)
	require.Empty(t, exectest.ToRows(batches))
	require.Equal(t, 1, src.Closed)
	require.NoError(t, op.Close(), "Close twice")
}
