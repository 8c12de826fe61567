package planner_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/catalog"
	"github.com/flightd/flightd/planner"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestDefaultVersions plans statements under session-style version defaults: tables without
// an AT clause read the default, the SQL's AT clause wins, and the version is pinned in the
// Substrait plan (what a ticket carries).
func TestDefaultVersions(t *testing.T) {
	day := func(d, h int) time.Time { return time.Date(2026, 1, d, h, 0, 0, 0, time.UTC) }
	cases := []struct {
		name     string
		defaults planner.DefaultVersions
		sql      string
		want     []string // versions of the scans, in plan order
		err      error
	}{
		{"none", planner.DefaultVersions{}, "SELECT id FROM t", []string{"t version=3"}, nil},
		{"as of between commits", planner.DefaultVersions{AsOf: day(2, 12)}, "SELECT id FROM t", []string{"t version=2"}, nil},
		{"as of exactly a commit", planner.DefaultVersions{AsOf: day(1, 0)}, "SELECT id FROM t", []string{"t version=1"}, nil},
		{"as of in the future", planner.DefaultVersions{AsOf: day(30, 0)}, "SELECT id FROM t", []string{"t version=3"}, nil},
		{"AT wins", planner.DefaultVersions{AsOf: day(1, 12)}, "SELECT id FROM t AT (VERSION => 3)", []string{"t version=3"}, nil},
		{"per table version", planner.DefaultVersions{Tables: map[string]catalog.VersionRef{"t": {Version: 2}}}, "SELECT id FROM t", []string{"t version=2"}, nil},
		{"per table tag, any case", planner.DefaultVersions{Tables: map[string]catalog.VersionRef{"T": {Tag: "prod"}}}, "SELECT id FROM t", []string{"t version=2"}, nil},
		{"per table beats as of", planner.DefaultVersions{AsOf: day(1, 12), Tables: map[string]catalog.VersionRef{"t": {Version: 3}}}, "SELECT t.id FROM t JOIN u ON t.id = u.t_id", []string{"t version=3", "u version=1"}, nil},
		{"as of before the table existed", planner.DefaultVersions{AsOf: day(1, 0).Add(-time.Hour)}, "SELECT id FROM t", nil, catalog.ErrNoSuchVersion},
		{"missing version", planner.DefaultVersions{Tables: map[string]catalog.VersionRef{"t": {Version: 9}}}, "SELECT id FROM t", nil, catalog.ErrNoSuchVersion},
	}
	scanRe := regexp.MustCompile(`Scan: (\w+ version=\d+)`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := planner.New(plantest.Standard())
			ctx := planner.WithDefaultVersions(context.Background(), tc.defaults)
			prep, err := p.PlanSQL(ctx, tc.sql)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			// The consumer reads the pinned versions back without any defaults in its context.
			n, err := p.Logical(context.Background(), prep.Substrait)
			require.NoError(t, err)
			var got []string
			for _, m := range scanRe.FindAllStringSubmatch(plan.Explain(n), -1) {
				got = append(got, m[1])
			}
			require.Equal(t, tc.want, got)
		})
	}
}
