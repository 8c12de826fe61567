package bind_test

import (
	"testing"

	"github.com/flightd/flightd/planner/internal/plantest"
	"github.com/flightd/flightd/planner/plan"
)

// TestBindUnnest checks the plans of table functions (range, generate_series, unnest in
// FROM, LATERAL unnest), UNNEST in the select list, slices, string subscripts and
// ORDER BY ALL, and their errors. Rewrite with go test -rewrite -run TestBindUnnest.
func TestBindUnnest(t *testing.T) {
	plantest.RunFile(t, "testdata/unnest", func(t *testing.T, c plantest.Case) string {
		n, err := bindSQL(t, c.Input)
		if err != nil {
			return "error: " + err.Error()
		}
		return plan.Explain(n) + plantest.SchemaString(n.Schema())
	})
}
