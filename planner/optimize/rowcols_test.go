package optimize_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/optimize"
	"github.com/flightd/flightd/planner/plan"
)

// TestRowColumnPushdown: filters on the hidden row columns go into the scan, and projection
// pushdown keeps only the row columns something reads (after the Substrait round trip).
func TestRowColumnPushdown(t *testing.T) {
	tests := []struct{ sql, want string }{{
		sql:  "SELECT id FROM u WHERE _rowaddr > 5",
		want: "Project: id := id#0\n  Scan: u version=1 columns=[id#0, _rowaddr] filter=gt(_rowaddr#1, 5)\n",
	}, {
		// Both are named, only _rowaddr is read: _rowid is pruned and _rowaddr moves up.
		sql:  "SELECT _rowaddr, '_rowid' AS s FROM u",
		want: "Project: _rowaddr := _rowaddr#0, s := '_rowid'\n  Scan: u version=1 columns=[_rowaddr]\n",
	}, {
		sql:  "SELECT name FROM u WHERE _rowid = 3 AND id > 1",
		want: "Project: name := name#1\n  Scan: u version=1 columns=[id#0, name#2, _rowid] filter=and(equal(_rowid#2, 3), gt(id#0, 1))\n",
	}, {
		sql:  "SELECT count(*) FROM u WHERE _rowid < _rowaddr",
		want: "Project: count_star() := count_star()#0\n  Aggregate: group=[] aggs=[count_star() := count(*)]\n    Scan: u version=1 columns=[_rowid, _rowaddr] filter=lt(_rowid#0, _rowaddr#1)\n",
	}}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n := logical(t, tc.sql)
			out := optimize.Optimize(n)
			require.Equal(t, plantest.SchemaString(n.Schema()), plantest.SchemaString(out.Schema()))
			require.Equal(t, tc.want, plan.Explain(out))
		})
	}
}
