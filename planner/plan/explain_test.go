package plan_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

func TestExplain(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	scan := plan.NewScan(plantest.NewTable("tbl", 7, schema), []int{0, 2})
	a := &plan.ColumnRef{Index: 0, Name: "a", DataType: arrow.PrimitiveTypes.Int64}
	c := &plan.ColumnRef{Index: 1, Name: "c", DataType: arrow.PrimitiveTypes.Float64, Null: true}
	scan.Filter = &plan.Call{Func: "gt", Args: []plan.Expr{a, &plan.Literal{Value: scalar.NewInt64Scalar(5)}}, DataType: arrow.FixedWidthTypes.Boolean}
	scan.Limit = 100
	agg := plan.NewAggregate(scan, []plan.Expr{a}, []string{"a"}, []plan.AggCall{
		{Func: "count", DataType: arrow.PrimitiveTypes.Int64, Name: "n"},
		{Func: "sum", Args: []plan.Expr{c}, Distinct: true, DataType: arrow.PrimitiveTypes.Float64, Null: true, Name: "s",
			Filter: &plan.Call{Func: "is_not_null", Args: []plan.Expr{c}, DataType: arrow.FixedWidthTypes.Boolean}},
	})
	s := &plan.ColumnRef{Index: 2, Name: "s", DataType: arrow.PrimitiveTypes.Float64, Null: true}
	proj := plan.NewProject(agg, []plan.Expr{a, &plan.Cast{Input: s, DataType: arrow.BinaryTypes.String, Try: true}}, []string{"a", "s_text"})
	sorted := &plan.Sort{Input: proj, Keys: []plan.SortKey{{Expr: a, Descending: true, NullsFirst: true}}}
	n := &plan.Limit{Input: sorted, Offset: 2, Count: -1}

	require.Equal(t, "Limit: offset=2 count=all\n"+
		"  Sort: a#0 DESC NULLS FIRST\n"+
		"    Project: a := a#0, s_text := TRY_CAST(s#2 AS utf8)\n"+
		"      Aggregate: group=[a := a#0] aggs=[n := count(*), s := sum(DISTINCT c#1) FILTER (WHERE is_not_null(c#1))]\n"+
		"        Scan: tbl version=7 columns=[a#0, c#2] filter=gt(a#0, 5) limit=100\n", plan.Explain(n))
}

func TestRewriteColumns(t *testing.T) {
	a := &plan.ColumnRef{Index: 0, Name: "a", DataType: arrow.PrimitiveTypes.Int64}
	b := &plan.ColumnRef{Index: 1, Name: "b", DataType: arrow.PrimitiveTypes.Int64}
	e := &plan.Call{Func: "add", Args: []plan.Expr{a, &plan.Cast{Input: b, DataType: arrow.PrimitiveTypes.Int64}}, DataType: arrow.PrimitiveTypes.Int64}
	out := plan.RewriteColumns(e, func(c *plan.ColumnRef) plan.Expr {
		r := *c
		r.Index += 10
		return &r
	})
	require.Equal(t, "add(a#10, CAST(b#11 AS int64))", out.String())
	require.Equal(t, "add(a#0, CAST(b#1 AS int64))", e.String(), "the input is not modified")
	var seen []int
	plan.Columns(out, func(c *plan.ColumnRef) { seen = append(seen, c.Index) })
	require.Equal(t, []int{10, 11}, seen)
}

func TestExplainJoinSetOpValues(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	left := plan.NewValues(arrow.NewSchema([]arrow.Field{{Name: "a", Type: i64}}, nil),
		[][]plan.Expr{{&plan.Literal{Value: scalar.NewInt64Scalar(1)}}, {&plan.Literal{Value: scalar.NewInt64Scalar(2)}}})
	right := plan.NewValues(arrow.NewSchema([]arrow.Field{{Name: "b", Type: i64, Nullable: true}}, nil),
		[][]plan.Expr{{&plan.Literal{Value: scalar.MakeNullScalar(i64)}}})
	a := &plan.ColumnRef{Index: 0, Name: "a", DataType: i64}
	b := &plan.ColumnRef{Index: 0, Name: "b", DataType: i64, Null: true}
	cond := &plan.Call{Func: "gt", Args: []plan.Expr{a, &plan.ColumnRef{Index: 1, Name: "b", DataType: i64, Null: true}}, DataType: arrow.FixedWidthTypes.Boolean, Null: true}
	tests := []struct {
		n    plan.Node
		want string
	}{
		{plan.NewJoin(left, right, plan.LeftJoin, []plan.Expr{a}, []plan.Expr{b}, cond),
			"Join: left keys=[a#0 = b#0] cond=gt(a#0, b#1)\n" +
				"  Values: columns=[a] rows=[(1), (2)]\n" +
				"  Values: columns=[b] rows=[(NULL)]\n"},
		{plan.NewJoin(left, right, plan.CrossJoin, nil, nil, nil), "Join: cross\n  Values: columns=[a] rows=[(1), (2)]\n  Values: columns=[b] rows=[(NULL)]\n"},
		{plan.NewSetOp(left, right, plan.Except, true), "SetOp: except all\n  Values: columns=[a] rows=[(1), (2)]\n  Values: columns=[b] rows=[(NULL)]\n"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, plan.Explain(tc.n))
	}
	require.Equal(t, "schema: a int64, b int64 null", plantest.SchemaString(tests[0].n.Schema()))
	require.Equal(t, "schema: a int64 null", plantest.SchemaString(tests[2].n.Schema()), "a set operation column is nullable when either side's is")
	mark := plan.NewJoin(left, right, plan.MarkJoin, []plan.Expr{a}, []plan.Expr{b}, nil)
	require.Equal(t, "schema: a int64, mark bool null", plantest.SchemaString(mark.Schema()))
}

func TestSplitJoinCondition(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	col := func(i int) plan.Expr { return &plan.ColumnRef{Index: i, DataType: i64} }
	eq := func(x, y plan.Expr) plan.Expr {
		return &plan.Call{Func: "equal", Args: []plan.Expr{x, y}, DataType: arrow.FixedWidthTypes.Boolean}
	}
	one := &plan.Literal{Value: scalar.NewInt64Scalar(1)}
	cond := plan.Conjoin([]plan.Expr{eq(col(0), col(2)), eq(col(3), col(1)), eq(col(0), col(1)), eq(col(2), one)})
	lk, rk, rest := plan.SplitJoinCondition(cond, 2)
	require.Equal(t, "[#0 #1]", fmt.Sprint(lk))
	require.Equal(t, "[#0 #1]", fmt.Sprint(rk))
	require.Equal(t, "and(equal(#0, #1), equal(#2, 1))", rest.String())
	require.Len(t, plan.SplitConjuncts(cond), 4)
	require.Nil(t, plan.Conjoin(nil))
}
