package plan_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// rowsTable is a fake table with a row count.
type rowsTable struct {
	catalog.Table
	rows int64
}

func (t rowsTable) Stats() catalog.Stats { return catalog.Stats{Rows: t.rows} }

func TestEstimator(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64}, {Name: "v", Type: i64, Nullable: true}}, nil)
	scan := func(rows int64) *plan.Scan {
		return plan.NewScan(rowsTable{Table: plantest.NewTable("x", 1, schema), rows: rows}, []int{0, 1})
	}
	col := func(i int) plan.Expr { return &plan.ColumnRef{Index: i, DataType: i64} }
	lit := &plan.Literal{Value: scalar.NewInt64Scalar(3)}
	cmp := func(f string, a, b plan.Expr) plan.Expr {
		return &plan.Call{Func: f, Args: []plan.Expr{a, b}, DataType: arrow.FixedWidthTypes.Boolean}
	}
	filtered := func(rows int64, cond plan.Expr) *plan.Scan {
		s := scan(rows)
		s.Filter = cond
		return s
	}
	fact, dim := scan(6000), filtered(100, cmp("gt", col(1), lit)) // dim: 33 rows of 100 keys
	limited := scan(1000)
	limited.Limit = 10
	tests := []struct {
		name string
		n    plan.Node
		rows float64
	}{
		{"table rows", scan(500), 500},
		{"unknown rows", scan(-1), plan.DefaultRows},
		{"empty table counts as one row", scan(0), 1},
		{"equality", filtered(1000, cmp("equal", col(0), lit)), 100},
		{"range and equality", filtered(1000, cmp("and", cmp("lt", col(0), lit), cmp("equal", col(1), lit))), 33},
		{"between counts as one range", filtered(1000, cmp("and", cmp("gte", col(0), lit), cmp("lte", col(0), lit))), 330},
		{"ranges on two columns", filtered(1000, cmp("and", cmp("gte", col(0), lit), cmp("lte", col(1), lit))), 1000 * 0.33 * 0.33},
		{"or", filtered(1000, cmp("or", cmp("equal", col(0), lit), cmp("equal", col(1), lit))), 190},
		{"limit", limited, 10},
		{"filter node", &plan.Filter{Input: scan(1000), Cond: cmp("not_equal", col(0), lit)}, 900},
		// Foreign key (fact.v, domain 6000) to key (dim.k, domain 100): the shared domain is
		// 100, ndv(dim) = 33, ndv(fact) = 100: 6000·33/100.
		{"fk join", plan.NewJoin(fact, dim, plan.InnerJoin, []plan.Expr{col(1)}, []plan.Expr{col(0)}, nil), 6000 * 33 / 100.0},
		{"cross join", plan.NewJoin(scan(20), scan(30), plan.CrossJoin, nil, nil, nil), 600},
		{"semi join keeps at most the left", plan.NewJoin(scan(50), fact, plan.SemiJoin, []plan.Expr{col(0)}, []plan.Expr{col(1)}, nil), 50},
		{"left join keeps the left", plan.NewJoin(scan(50), scan(10), plan.LeftJoin, []plan.Expr{col(0)}, []plan.Expr{col(0)}, nil), 50},
		{"global aggregate", plan.NewAggregate(fact, nil, nil, nil), 1},
		{"group by a key of a small table", plan.NewAggregate(plan.NewJoin(fact, dim, plan.InnerJoin, []plan.Expr{col(1)}, []plan.Expr{col(0)}, nil), []plan.Expr{col(2)}, []string{"k"}, nil), 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.rows, plan.NewEstimator().Rows(tc.n), 1e-6)
		})
	}
}

func TestEquiJoinRows(t *testing.T) {
	tests := []struct{ l, r, d, want float64 }{
		{6e6, 1.5e6, 1.5e6, 6e6}, // lineitem ⋈ orders on the order key
		{6e6, 5e5, 1.5e6, 2e6},   // ... with a third of the orders
		{2.5, 1e4, 25, 1e3},      // one nation's suppliers
		{10, 10, 1e6, 10},        // small inputs: the smaller value set is contained in the other
		{1e3, 1e3, 0, 1e6},       // no domain: a cross product
	}
	for _, tc := range tests {
		require.InDelta(t, tc.want, plan.EquiJoinRows(tc.l, tc.r, tc.d), 1e-6)
	}
}
