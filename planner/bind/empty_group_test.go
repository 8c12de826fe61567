package bind_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/plan"
)

// TestScalarSubqueryEmptyGroupRouting checks which equality-correlated aggregating scalar
// subqueries are decorrelated over a domain (a right join of the subquery's input with
// the distinct outer keys): exactly those whose value over no rows may be non-NULL.
func TestScalarSubqueryEmptyGroupRouting(t *testing.T) {
	tests := []struct {
		item       string
		wantDomain bool
	}{
		{"count(*) + 1", true},
		{"coalesce(sum(amount), -1)", true},
		{"count(amount) * 2", true},
		{"CASE WHEN count(*) = 0 THEN 'none' ELSE 'some' END", true},
		{"count(*) = 0", true},
		{"approx_count_distinct(amount)", true},
		{"-count(*)", true},
		{"CAST(count(*) AS DOUBLE)", true},
		{"sum(amount) IS NULL", true},
		{"count(*)", false},
		{"count(DISTINCT amount)", false},
		{"sum(amount)", false},
		{"min(amount)", false},
		{"0.2 * avg(amount)", false},
		{"sum(amount) + count(*)", false},
		{"-max(amount)", false},
		{"CAST(sum(amount) AS BIGINT)", false},
		{"sum(amount) = 0", false},
	}
	for _, tc := range tests {
		t.Run(tc.item, func(t *testing.T) {
			n, err := bindSQL(t, "SELECT id, (SELECT "+tc.item+" FROM u WHERE u.t_id = t.id) FROM t")
			require.NoError(t, err)
			require.Equal(t, tc.wantDomain, strings.Contains(plan.Explain(n), "Join: right"), plan.Explain(n))
		})
	}
}

// TestEmptyGroupOnlyScalarCorrelated checks that an uncorrelated aggregate is not
// decorrelated over a domain (it aggregates once, cross joined).
func TestEmptyGroupOnlyScalarCorrelated(t *testing.T) {
	n, err := bindSQL(t, "SELECT id, (SELECT count(*) + 1 FROM u) FROM t")
	require.NoError(t, err)
	require.NotContains(t, plan.Explain(n), "Join: right")
	require.Contains(t, plan.Explain(n), "Join: cross")
}

// TestOneRowAggregateSubqueries checks EXISTS and IN over an ungrouped aggregate (one row
// per outer row): EXISTS is TRUE without a join, x IN (q) compares x with the scalar
// subquery (a left join), and grouped subqueries keep their semi or mark join.
func TestOneRowAggregateSubqueries(t *testing.T) {
	tests := []struct {
		sql      string
		contains []string
		absent   []string
	}{
		{"SELECT id FROM t WHERE EXISTS (SELECT count(*) + 1 FROM u WHERE u.t_id = t.id)", []string{"Filter: true"}, []string{"Join"}},
		{"SELECT id, NOT EXISTS (SELECT max(amount) FROM u WHERE u.t_id = t.id) FROM t", []string{"not(true)"}, []string{"Join"}},
		{"SELECT id, id IN (SELECT count(*) FROM u WHERE u.t_id = t.id) FROM t", []string{"Join: left", "equal(id#0, coalesce("}, []string{"Join: mark", "Join: semi"}},
		{"SELECT id FROM t WHERE id IN (SELECT count(*) FROM u WHERE u.t_id = t.id)", []string{"Join: left"}, []string{"Join: mark", "Join: semi"}},
		{"SELECT id FROM t WHERE EXISTS (SELECT t_id FROM u WHERE u.t_id = t.id)", []string{"Join: semi"}, nil},
		{"SELECT id FROM t WHERE id IN (SELECT count(*) FROM u GROUP BY name)", []string{"Join: semi"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := bindSQL(t, tc.sql)
			require.NoError(t, err)
			ex := plan.Explain(n)
			for _, c := range tc.contains {
				require.Contains(t, ex, c)
			}
			for _, a := range tc.absent {
				require.NotContains(t, ex, a)
			}
		})
	}
}
