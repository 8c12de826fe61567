package bind_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/internal/dberr"
	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestBindOrderedAggregatesAndByName checks the plans of aggregates with ORDER BY (the
// aggregate's input is sorted), UNION BY NAME (both sides projected onto the union of the
// names) and DuckDB's literal typing (2.5 is DECIMAL(2,1), 1e3 DOUBLE, pi() a constant).
func TestBindOrderedAggregatesAndByName(t *testing.T) {
	tests := []struct {
		sql  string
		want []string // substrings of the EXPLAIN text and schema, in order
		err  dberr.Kind
	}{
		{sql: "SELECT string_agg(name, ',' ORDER BY qty DESC NULLS FIRST), first(id ORDER BY qty DESC NULLS FIRST) FROM t",
			want: []string{"Aggregate:", "string_agg(name#1, ',')", "first(id#0)", "Sort: qty#3 DESC NULLS FIRST", "Scan: t"}},
		{sql: "SELECT name, list(id ORDER BY id), median(qty) FROM t GROUP BY name",
			want: []string{"Aggregate: group=[name := name#1]", "median(qty#3)", "Sort: id#0 ASC NULLS LAST", "Scan: t"}},
		{sql: "SELECT list(id ORDER BY id), count(*), list(id ORDER BY qty) FROM t",
			want: []string{"Project: ", "list(id ORDER BY id)#0", "count_star()#1", "list(id ORDER BY qty)#2", "Join: cross", "Sort: id#0", "Sort: qty#3"}},
		{sql: "SELECT name, list(id ORDER BY id), list(id ORDER BY qty) FROM t GROUP BY name",
			want: []string{"Project: name := name#0", "Join: inner", "Sort: id#0", "Sort: qty#3"}},
		{sql: "SELECT lower(name ORDER BY id) FROM t", err: dberr.Binder},
		{sql: "SELECT id, name FROM t UNION ALL BY NAME SELECT amount, t_id AS ID FROM u",
			want: []string{"SetOp: union all", "amount := NULL", "id := ID#1, name := NULL, amount := amount#0", "schema: id int64 null, name utf8 null, amount float64 null"}},
		{sql: "SELECT 2.5, 1e3, -0.50, pi()", want: []string{"schema: 2.5 decimal(2, 1), 1e3 float64, -0.50 decimal(3, 2), pi() float64"}},
		{sql: "SELECT arg_max(name, qty), max_by(id, day), quantile(qty, 0.5) FROM t",
			want: []string{"arg_max(name#1, qty#3)", "arg_max(id#0, day#4)", "quantile_disc(qty#3, 0.5)"}},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := bindSQL(t, tc.sql)
			if tc.err != 0 {
				var e *dberr.Error
				require.ErrorAs(t, err, &e, "want an error, got %v", err)
				require.Equal(t, tc.err, e.Kind, err.Error())
				return
			}
			require.NoError(t, err)
			got := plan.Explain(n) + plantest.SchemaString(n.Schema())
			rest := got
			for _, w := range tc.want {
				require.Contains(t, rest, w, got)
				rest = rest[len(w)+indexOf(rest, w):]
			}
		})
	}
}

func indexOf(s, sub string) int {
	for i := range len(s) - len(sub) + 1 {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
