package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestPreparedLogical: Prepared.Logical, which the server runs instead of decoding the
// ticket's Substrait plan when it starts a statement right after planning, optimizes to the
// same plan (EXPLAIN text and schema) as the decoded Substrait plan, for every query the
// binder tests bind, for EXPLAIN ANALYZE and for PlanSubstrait.
func TestPreparedLogical(t *testing.T) {
	ctx := context.Background()
	p := planner.New(plantest.Standard())
	queries := []string{
		"EXPLAIN ANALYZE SELECT name FROM t WHERE score > 1",
		"SELECT name AS n, qty * 2 FROM t AT (VERSION => 2) WHERE score > 1 ORDER BY n LIMIT 5",
	}
	for _, c := range plantest.ReadCases(t, "bind/testdata/bind") {
		if !strings.HasPrefix(c.Expected, "error:") {
			queries = append(queries, c.Input)
		}
	}
	require.Greater(t, len(queries), 25, "the binder testdata should provide many queries")
	checked := 0
	for _, sql := range queries {
		prep, err := p.PlanSQL(ctx, sql)
		if err != nil || prep.Substrait == nil { // binder-only features, placeholders
			continue
		}
		require.NotNil(t, prep.Logical, sql)
		decoded, err := p.Logical(ctx, prep.Substrait)
		require.NoError(t, err, sql)
		require.True(t, decoded.Schema().Equal(prep.Logical.Schema()), sql)
		require.Equal(t, plan.Explain(planner.Optimize(decoded)), plan.Explain(planner.Optimize(prep.Logical)), sql)

		sub, err := p.PlanSubstrait(ctx, prep.Substrait)
		require.NoError(t, err, sql)
		require.NotNil(t, sub.Logical, sql)
		require.Equal(t, plan.Explain(planner.Optimize(decoded)), plan.Explain(planner.Optimize(sub.Logical)), sql)
		checked++
	}
	require.Greater(t, checked, 25)
}
