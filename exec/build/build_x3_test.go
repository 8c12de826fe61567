package build_test

import (
	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// Window functions end to end against DuckDB (plans as the binder builds them: the Window
// node over the FROM clause or the aggregate, a projection above).
func init() {
	queries = append(queries, windowQueries...)
}

func windowFunc(fn string, dt any, args []plan.Expr, part []plan.Expr, order []plan.SortKey, frame *plan.Frame) plan.WindowFunc {
	f := plan.WindowFunc{Func: fn, Args: args, PartitionBy: part, OrderBy: order, Frame: frame, Null: true, Name: fn}
	switch dt {
	case "f64":
		f.DataType = f64
	default:
		f.DataType = i64
	}
	return f
}

var windowQueries = []query{
	{
		name: "window-over-scan",
		sql: `SELECT b, i, row_number() OVER (PARTITION BY b ORDER BY i),
			sum(c) OVER (PARTITION BY b ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
			lag(a) OVER (ORDER BY i), count(*) OVER (PARTITION BY b ORDER BY a RANGE BETWEEN 100 PRECEDING AND 100 FOLLOWING)
			FROM t WHERE i < 200`,
		plan: func(t catalog.Table) plan.Node {
			s := scanWhere(t, []int{0, 1, 2, 3}, call("lt", bln, ref(col(0), 0), lit(int64(200))))
			i, a, b, c := ref(col(0), 0), ref(col(1), 1), ref(col(2), 2), ref(col(3), 3)
			byI := []plan.SortKey{{Expr: i}}
			w := plan.NewWindow(s, []plan.WindowFunc{
				windowFunc("row_number", "i64", nil, []plan.Expr{b}, byI, nil),
				windowFunc("sum", "f64", []plan.Expr{c}, []plan.Expr{b}, byI, &plan.Frame{Unit: plan.FrameRows,
					Start: plan.FrameBound{Kind: plan.Preceding, Offset: lit(int64(2))}, End: plan.FrameBound{Kind: plan.CurrentRow}}),
				windowFunc("lag", "i64", []plan.Expr{a}, nil, byI, nil),
				windowFunc("count", "i64", nil, []plan.Expr{b}, []plan.SortKey{{Expr: a}}, &plan.Frame{Unit: plan.FrameRange,
					Start: plan.FrameBound{Kind: plan.Preceding, Offset: lit(int64(100))},
					End:   plan.FrameBound{Kind: plan.Following, Offset: lit(int64(100))}}),
			})
			return plan.NewProject(w, []plan.Expr{ref(col(2), 2), ref(col(0), 0), cref(4, i64), cref(5, f64), cref(6, i64), cref(7, i64)},
				[]string{"b", "i", "rn", "s", "l", "n"})
		},
	},
	{
		name: "window-over-aggregate", ordered: true,
		sql: "SELECT b, count(*) AS n, rank() OVER (ORDER BY count(*) DESC) AS r FROM t GROUP BY b ORDER BY r, b NULLS LAST",
		plan: func(t catalog.Table) plan.Node {
			agg := plan.NewAggregate(plan.NewScan(t, []int{2}), []plan.Expr{cref(0, str)}, []string{"b"},
				[]plan.AggCall{aggCall("count", i64, false)})
			w := plan.NewWindow(agg, []plan.WindowFunc{
				windowFunc("rank", "i64", nil, nil, []plan.SortKey{{Expr: cref(1, i64), Descending: true}}, nil)})
			return &plan.Sort{Input: w, Keys: []plan.SortKey{{Expr: cref(2, i64)}, {Expr: cref(0, str)}}}
		},
	},
}
