package planner_test

import (
	"context"
	"testing"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// FuzzPlanSQL: any SQL text either fails with a classified error or plans, round-trips
// through Substrait and optimizes without panicking.
func FuzzPlanSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT t.name, u.amount FROM t LEFT JOIN u ON t.id = u.t_id WHERE u.amount > 1",
		"SELECT * FROM t NATURAL JOIN u, (SELECT 1 AS x) s WHERE x IN (SELECT qty FROM t)",
		"WITH c AS (SELECT id FROM u) SELECT id, (SELECT count(*) FROM u WHERE u.t_id = t.id) FROM t WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.id = t.id)",
		"SELECT id FROM t UNION ALL SELECT t_id FROM u EXCEPT SELECT 1 ORDER BY 1 LIMIT 2",
		"VALUES (1, 'a'), (2, NULL)",
		"EXPLAIN SELECT lower(name) || 'x', date_part('year', day) + 1, day + INTERVAL 1 DAY FROM t",
		"SELECT qty, string_agg(name, ',') FILTER (WHERE id > 1), stddev(score) FROM t GROUP BY ALL",
		"SELECT * EXCLUDE (ts) FROM t FULL JOIN u USING (id) WHERE id IS DISTINCT FROM 3",
		"SELECT id, rank() OVER w, sum(qty) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t WINDOW w AS (PARTITION BY name ORDER BY id) QUALIFY rank() OVER w = 1",
	} {
		f.Add(s)
	}
	cat := plantest.Standard()
	p := planner.New(cat)
	f.Fuzz(func(t *testing.T, sql string) {
		ctx := context.Background()
		prep, err := p.PlanSQL(ctx, sql)
		if err != nil {
			if _, ok := dberr.KindOf(err); !ok {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		if prep.Substrait == nil {
			return // placeholders
		}
		n, err := p.Logical(ctx, prep.Substrait)
		if err != nil {
			t.Fatalf("plan of %q does not consume: %v", sql, err)
		}
		_ = plan.Explain(planner.Optimize(n))
	})
}
