package flightsrv

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// A streaming plan without a filter or computed column gets half the workers (at least
// one); a filter, in a Filter node or pushed into the scan, or a computed column keeps them
// all.
func TestStreamWorkers(t *testing.T) {
	cond := &plan.Literal{Value: scalar.NewBooleanScalar(true)}
	col := &plan.ColumnRef{Index: 0, DataType: arrow.PrimitiveTypes.Int64}
	cases := []struct {
		name    string
		node    plan.Node
		workers int
		want    int
	}{
		{"plain scan", &plan.Scan{}, 4, 2},
		{"plain scan on two cores", &plan.Limit{Input: &plan.Scan{}, Count: 10}, 2, 1},
		{"one core", &plan.Scan{}, 1, 1},
		{"filter node", &plan.Filter{Input: &plan.Scan{}, Cond: cond}, 2, 2},
		{"pushed filter", &plan.Limit{Input: &plan.Scan{Filter: cond}, Count: 1}, 4, 4},
		{"columns and constants", &plan.Project{Input: &plan.Scan{}, Exprs: []plan.Expr{col, cond}}, 2, 1},
		{"computed column", &plan.Project{Input: &plan.Scan{}, Exprs: []plan.Expr{col, &plan.Cast{Input: col, DataType: arrow.BinaryTypes.String}}}, 2, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, streamWorkers(tc.node, tc.workers))
		})
	}
}
