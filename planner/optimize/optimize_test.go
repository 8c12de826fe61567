package optimize_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/bind"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/parse"
	"github.com/flightd/flightd/planner/plan"
	"github.com/flightd/flightd/planner/substrait"
)

// logical plans sql the way queries run: bind, produce Substrait, consume it.
func logical(t *testing.T, sql string) plan.Node {
	t.Helper()
	ctx := context.Background()
	stmt, err := parse.Parse(sql)
	require.NoError(t, err)
	n, err := bind.Bind(ctx, plantest.Standard(), stmt)
	require.NoError(t, err)
	b, err := substrait.Marshal(n)
	require.NoError(t, err)
	n, err = substrait.Unmarshal(ctx, plantest.Standard(), b)
	require.NoError(t, err)
	return n
}

// TestRules runs testdata/rules/<family>: "opt" prints the optimized plan, "noop" checks
// that the optimizer leaves the plan unchanged. Rewrite with go test -rewrite.
func TestRules(t *testing.T) {
	for _, family := range []string{"filter", "project", "limit", "join"} {
		t.Run(family, func(t *testing.T) {
			plantest.RunFile(t, "testdata/rules/"+family, func(t *testing.T, c plantest.Case) string {
				n := logical(t, c.Input)
				before := plan.Explain(n)
				out := optimize.Optimize(n)
				require.Equal(t, before, plan.Explain(n), "Optimize must not modify its input")
				require.Equal(t, plantest.SchemaString(n.Schema()), plantest.SchemaString(out.Schema()), "Optimize must keep the result schema")
				if c.Command == "noop" {
					require.Equal(t, before, plan.Explain(out))
				}
				return plan.Explain(out)
			})
		})
	}
}
