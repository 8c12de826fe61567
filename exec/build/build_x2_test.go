package build_test

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/plan"
)

// Joins, set operations, VALUES and the string/math/date functions, end to end against
// DuckDB (the plans are what the planner builds for each SQL statement).
func init() {
	queries = append(queries, joinQueries...)
	queries = append(queries, setOpQueries...)
	queries = append(queries, functionQueries...)
}

// cref is a column reference at idx of type dt.
func cref(idx int, dt arrow.DataType) *plan.ColumnRef {
	return &plan.ColumnRef{Index: idx, DataType: dt, Null: true}
}

func scanWhere(t catalog.Table, cols []int, cond plan.Expr) *plan.Scan {
	s := plan.NewScan(t, cols)
	s.Filter = cond
	return s
}

var joinQueries = []query{
	{
		name: "hash-join-inner",
		sql:  "SELECT t1.i, t1.a, t2.i FROM t t1 JOIN t t2 ON t1.a = t2.i",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(t, []int{0, 1}), plan.NewScan(t, []int{0}), plan.InnerJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, nil)
		},
	},
	{
		name: "hash-join-left-residual",
		sql:  "SELECT t1.i, t1.a, t2.i, t2.b, t2.c FROM t t1 LEFT JOIN t t2 ON t1.a = t2.i AND t2.c > 0",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(t, []int{0, 1}), plan.NewScan(t, []int{0, 2, 3}), plan.LeftJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, call("gt", bln, cref(4, f64), lit(0.0)))
		},
	},
	{
		name: "hash-join-full-string-keys",
		sql: `SELECT * FROM (SELECT b, count(*) FROM t WHERE i < 500 GROUP BY b) x
			FULL JOIN (SELECT b, sum(a) FROM t WHERE i >= 300 AND b <> 'g3' GROUP BY b) y ON x.b = y.b`,
		plan: func(t catalog.Table) plan.Node {
			l := plan.NewAggregate(scanWhere(t, []int{0, 2}, call("lt", bln, cref(0, i64), lit(int64(500)))),
				[]plan.Expr{cref(1, str)}, []string{"b"}, []plan.AggCall{aggCall("count", i64, false)})
			r := plan.NewAggregate(scanWhere(t, []int{0, 1, 2}, call("and", bln,
				call("gte", bln, cref(0, i64), lit(int64(300))), call("not_equal", bln, cref(2, str), lit("g3")))),
				[]plan.Expr{cref(2, str)}, []string{"b"}, []plan.AggCall{aggCall("sum", i64, false, cref(1, i64))})
			return plan.NewJoin(l, r, plan.FullJoin, []plan.Expr{cref(0, str)}, []plan.Expr{cref(0, str)}, nil)
		},
	},
	{
		name: "hash-join-right-two-keys",
		sql: `SELECT t1.i, t1.b, t2.i FROM t t1 RIGHT JOIN (SELECT * FROM t WHERE i < 100) t2
			ON t1.i = t2.i + 500 AND t1.b = t2.b`,
		plan: func(t catalog.Table) plan.Node {
			r := scanWhere(t, []int{0, 2}, call("lt", bln, cref(0, i64), lit(int64(100))))
			p := plan.NewProject(r, []plan.Expr{cref(0, i64), cref(1, str)}, []string{"i", "b"})
			j := plan.NewJoin(plan.NewScan(t, []int{0, 2}), p, plan.RightJoin,
				[]plan.Expr{cref(0, i64), cref(1, str)},
				[]plan.Expr{call("add", i64, cref(0, i64), lit(int64(500))), cref(1, str)}, nil)
			return plan.NewProject(j, []plan.Expr{cref(0, i64), cref(1, str), cref(2, i64)}, []string{"i", "b", "i2"})
		},
	},
	{
		name: "semi-join",
		sql:  "SELECT i, a FROM t WHERE a IN (SELECT i FROM t WHERE c > 100)",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(t, []int{0, 1}),
				scanWhere(t, []int{0, 3}, call("gt", bln, cref(1, f64), lit(100.0))), plan.SemiJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, nil)
		},
	},
	{
		name: "anti-join",
		sql:  "SELECT i, a FROM t t1 WHERE NOT EXISTS (SELECT 1 FROM t t2 WHERE t2.i = t1.a)",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(t, []int{0, 1}), plan.NewScan(t, []int{0}), plan.AntiJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, nil)
		},
	},
	{
		// The subquery holds a NULL (a is NULL for i % 13 = 0), so no match means NULL.
		name: "mark-join-in-with-nulls",
		sql:  "SELECT i, a, a IN (SELECT a FROM t WHERE i < 100) FROM t",
		plan: func(t catalog.Table) plan.Node {
			return plan.NewJoin(plan.NewScan(t, []int{0, 1}),
				scanWhere(t, []int{0, 1}, call("lt", bln, cref(0, i64), lit(int64(100)))), plan.MarkJoin,
				[]plan.Expr{cref(1, i64)}, []plan.Expr{cref(1, i64)}, nil)
		},
	},
	{
		name: "mark-join-not-in",
		sql:  "SELECT i, a NOT IN (SELECT i * 3 FROM t WHERE i < 200) FROM t",
		plan: func(t catalog.Table) plan.Node {
			r := plan.NewProject(scanWhere(t, []int{0}, call("lt", bln, cref(0, i64), lit(int64(200)))),
				[]plan.Expr{call("multiply", i64, cref(0, i64), lit(int64(3)))}, []string{"x"})
			j := plan.NewJoin(plan.NewScan(t, []int{0, 1}), r, plan.MarkJoin, []plan.Expr{cref(1, i64)}, []plan.Expr{cref(0, i64)}, nil)
			return plan.NewProject(j, []plan.Expr{cref(0, i64), call("not", bln, cref(2, bln))}, []string{"i", "m"})
		},
	},
	{
		name: "nested-loop-inner",
		sql:  "SELECT t1.i, t2.i FROM t t1, t t2 WHERE t1.i < 30 AND t2.i < 30 AND t1.i < t2.i - 20",
		plan: func(t catalog.Table) plan.Node {
			lt30 := call("lt", bln, cref(0, i64), lit(int64(30)))
			return plan.NewJoin(scanWhere(t, []int{0}, lt30), scanWhere(t, []int{0}, lt30), plan.InnerJoin, nil, nil,
				call("lt", bln, cref(0, i64), call("subtract", i64, cref(1, i64), lit(int64(20)))))
		},
	},
	{
		name: "nested-loop-left-and-cross",
		sql: `SELECT t1.i, t2.i, t3.i FROM (SELECT i FROM t WHERE i < 20) t1
			LEFT JOIN (SELECT i FROM t WHERE i < 20) t2 ON t1.i > t2.i * 3, (SELECT i FROM t WHERE i < 3) t3`,
		plan: func(t catalog.Table) plan.Node {
			lt := func(n int64) *plan.Scan { return scanWhere(t, []int{0}, call("lt", bln, cref(0, i64), lit(n))) }
			l := plan.NewJoin(lt(20), lt(20), plan.LeftJoin, nil, nil,
				call("gt", bln, cref(0, i64), call("multiply", i64, cref(1, i64), lit(int64(3)))))
			return plan.NewJoin(l, lt(3), plan.CrossJoin, nil, nil, nil)
		},
	},
}

var setOpQueries = []query{
	{
		name: "union-distinct",
		sql:  "SELECT b FROM t WHERE i < 300 UNION SELECT b FROM t WHERE i > 900",
		plan: func(t catalog.Table) plan.Node {
			l := plan.NewProject(scanWhere(t, []int{0, 2}, call("lt", bln, cref(0, i64), lit(int64(300)))), []plan.Expr{cref(1, str)}, []string{"b"})
			r := plan.NewProject(scanWhere(t, []int{0, 2}, call("gt", bln, cref(0, i64), lit(int64(900)))), []plan.Expr{cref(1, str)}, []string{"b"})
			return plan.NewSetOp(l, r, plan.Union, false)
		},
	},
	{
		name: "except-all",
		sql:  "SELECT a % 10 FROM t WHERE i < 100 EXCEPT ALL SELECT a % 10 FROM t WHERE i >= 950",
		plan: func(t catalog.Table) plan.Node { return amod10(t, plan.Except, true) },
	},
	{
		name: "intersect-all",
		sql:  "SELECT a % 10 FROM t WHERE i < 100 INTERSECT ALL SELECT a % 10 FROM t WHERE i >= 950",
		plan: func(t catalog.Table) plan.Node { return amod10(t, plan.Intersect, true) },
	},
	{
		name: "intersect",
		sql:  "SELECT a % 10 FROM t WHERE i < 100 INTERSECT SELECT a % 10 FROM t WHERE i >= 950",
		plan: func(t catalog.Table) plan.Node { return amod10(t, plan.Intersect, false) },
	},
	{
		name: "union-all-values",
		sql:  "SELECT i, b FROM t WHERE i < 5 UNION ALL VALUES (100, 'x'), (101, NULL)",
		plan: func(t catalog.Table) plan.Node {
			s := scanWhere(t, []int{0, 2}, call("lt", bln, cref(0, i64), lit(int64(5))))
			v := plan.NewValues(s.Schema(), [][]plan.Expr{
				{lit(int64(100)), lit("x")},
				{lit(int64(101)), &plan.Literal{Value: scalar.MakeNullScalar(str)}},
			})
			return plan.NewSetOp(s, v, plan.Union, true)
		},
	},
}

func amod10(t catalog.Table, kind plan.SetOpKind, all bool) plan.Node {
	side := func(cond plan.Expr) plan.Node {
		return plan.NewProject(scanWhere(t, []int{0, 1}, cond),
			[]plan.Expr{call("modulus", i64, cref(1, i64), lit(int64(10)))}, []string{"m"})
	}
	return plan.NewSetOp(side(call("lt", bln, cref(0, i64), lit(int64(100)))),
		side(call("gte", bln, cref(0, i64), lit(int64(950)))), kind, all)
}

var (
	date32 = arrow.FixedWidthTypes.Date32
	tsUS   = &arrow.TimestampType{Unit: arrow.Microsecond}
	i32    = arrow.PrimitiveTypes.Int32
)

var functionQueries = []query{
	{
		name: "string-functions", ordered: true,
		sql: `SELECT i, upper(b), length(b), substring(b, 2), lpad(b, 4, '*'), regexp_replace(b, 'g', 'G'),
			concat(b, '-', a), starts_with(b, 'g1'), b ILIKE 'G_', split_part('x-y-z', '-', (i % 4)::INTEGER),
			strpos(b, '3'), reverse(b), replace(b, 'g', 'gg'), right(b, 1)
			FROM t WHERE i < 40 ORDER BY i`,
		plan: func(t catalog.Table) plan.Node {
			s := scanWhere(t, []int{0, 1, 2}, call("lt", bln, cref(0, i64), lit(int64(40))))
			i, a, b := cref(0, i64), cref(1, i64), cref(2, str)
			p := plan.NewProject(s, []plan.Expr{
				i,
				call("upper", str, b),
				call("length", i64, b),
				call("substring", str, b, lit(int64(2))),
				call("lpad", str, b, lit(int32(4)), lit("*")),
				call("regexp_replace", str, b, lit("g"), lit("G")),
				call("concat", str, b, lit("-"), &plan.Cast{Input: a, DataType: str}),
				call("starts_with", bln, b, lit("g1")),
				call("ilike", bln, b, lit("G_")),
				call("split_part", str, lit("x-y-z"), lit("-"), &plan.Cast{Input: call("modulus", i64, i, lit(int64(4))), DataType: i32}),
				call("strpos", i64, b, lit("3")),
				call("reverse", str, b),
				call("replace", str, b, lit("g"), lit("gg")),
				call("right", str, b, lit(int64(1))),
			}, []string{"i", "u", "l", "s", "p", "r", "c", "sw", "il", "sp", "pos", "rev", "rep", "rt"})
			return &plan.Sort{Input: p, Keys: []plan.SortKey{{Expr: cref(0, i64)}}}
		},
	},
	{
		name: "math-functions", ordered: true,
		sql: `SELECT i, round(c, 1), round(c), sqrt(abs(c)), greatest(a, i, 500), least(a, i), nullif(a % 3, 0),
			ceil(c / 7), floor(c / 7), sign(c), power(2.0, (i % 5)::DOUBLE), ln(i + 1), a IS DISTINCT FROM i
			FROM t WHERE i < 60 ORDER BY i`,
		plan: func(t catalog.Table) plan.Node {
			s := scanWhere(t, []int{0, 1, 3}, call("lt", bln, cref(0, i64), lit(int64(60))))
			i, a, c := cref(0, i64), cref(1, i64), cref(2, f64)
			p := plan.NewProject(s, []plan.Expr{
				i,
				call("round", f64, c, lit(int32(1))),
				call("round", f64, c),
				call("sqrt", f64, call("abs", f64, c)),
				call("greatest", i64, a, i, lit(int64(500))),
				call("least", i64, a, i),
				call("nullif", i64, call("modulus", i64, a, lit(int64(3))), lit(int64(0))),
				call("ceil", f64, call("divide", f64, c, lit(7.0))),
				call("floor", f64, call("divide", f64, c, lit(7.0))),
				call("sign", arrow.PrimitiveTypes.Int8, c),
				call("power", f64, lit(2.0), &plan.Cast{Input: call("modulus", i64, i, lit(int64(5))), DataType: f64}),
				call("ln", f64, &plan.Cast{Input: call("add", i64, i, lit(int64(1))), DataType: f64}),
				call("is_distinct_from", bln, a, i),
			}, []string{"i", "r1", "r0", "sq", "g", "l", "n", "ce", "fl", "sg", "pw", "ln", "d"})
			return &plan.Sort{Input: p, Keys: []plan.SortKey{{Expr: cref(0, i64)}}}
		},
	},
	{
		name: "date-functions", ordered: true,
		sql: `SELECT i, year(d), month(d), day(d), date_part('dow', d), extract(doy FROM d), date_part('week', d),
			date_part('quarter', d), d - DATE '2024-01-01', date_part('day', date_trunc('month', d)),
			date_part('month', d + INTERVAL 1 MONTH), date_part('epoch', d)
			FROM (SELECT i, DATE '2024-01-01' + (i * 3)::INTEGER AS d FROM t WHERE i < 200) ORDER BY i`,
		plan: func(t catalog.Table) plan.Node {
			s := scanWhere(t, []int{0}, call("lt", bln, cref(0, i64), lit(int64(200))))
			i := cref(0, i64)
			jan1 := &plan.Literal{Value: scalar.NewDate32Scalar(arrow.Date32(19723))} // 2024-01-01
			d := call("add", date32, jan1, &plan.Cast{Input: call("multiply", i64, i, lit(int64(3))), DataType: i32})
			month := &plan.Literal{Value: scalar.NewMonthDayNanoIntervalScalar(arrow.MonthDayNanoInterval{Months: 1})}
			p := plan.NewProject(s, []plan.Expr{
				i,
				call("year", i64, d), call("month", i64, d), call("day", i64, d),
				call("date_part", i64, lit("dow"), d), call("extract", i64, lit("doy"), d),
				call("date_part", i64, lit("week"), d), call("date_part", i64, lit("quarter"), d),
				call("subtract", i64, d, jan1),
				call("date_part", i64, lit("day"), call("date_trunc", tsUS, lit("month"), d)),
				call("date_part", i64, lit("month"), call("add", tsUS, d, month)),
				call("date_part", f64, lit("epoch"), d),
			}, []string{"i", "y", "m", "dd", "dow", "doy", "w", "q", "diff", "tr", "pm", "ep"})
			return &plan.Sort{Input: p, Keys: []plan.SortKey{{Expr: cref(0, i64)}}}
		},
	},
}
